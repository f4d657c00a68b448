/**
 * A loopback port nothing listens on: 9 (discard) is below the range the system hands out for
 * listen(0) and outgoing connections, so no server or client of the suite ever takes it. A port
 * bound and released a moment before is not: on a machine running the whole suite another test's
 * server or connection can take it in between (seen: "connection reset" instead of refused).
 */
export const CLOSED_PORT = 9;
