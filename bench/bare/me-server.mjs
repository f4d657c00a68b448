// Baseline for the sandbox's throughput: a bare node:http server answering every request with the
// bytes the sandbox answers GET /me with (BODY_BASE64), same status and headers. Prints its port.
import http from 'node:http';

const body = Buffer.from(process.env.BODY_BASE64 ?? '', 'base64');
const server = http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
