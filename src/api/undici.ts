/**
 * The two undici modules the HTTP core uses, in one module so that they load as one piece (see
 * transport.ts). Not part of the core chunk of the build: it loads on the first request.
 */
export { default as Agent } from 'undici/lib/dispatcher/agent.js';
export { default as request } from 'undici/lib/api/api-request.js';
