import { createServer } from 'node:http';

/**
 * The benchmark's webhook receiver: a separate process on loopback that reads each body and
 * answers 200, so that sending and receiving do not share one event loop.
 */
const server = createServer((req, res) => {
  req.on('data', () => undefined);
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.send?.({ port: address.port });
});
process.on('disconnect', () => process.exit(0));
