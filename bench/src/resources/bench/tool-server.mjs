// The HTTP tool of bench/tool-bridge (ToolBridgeBench): answers every POST with
// {"weather":"sunny","asked":<the posted JSON>}, keeping connections alive. Run inside an outside
// host's network namespace (OutsideHost.startInNetwork), so that the run's tool bridge (from the
// host) and a bridge sandbox (routed by the host) reach the same server at the same address.
//   node tool-server.mjs <port>
import http from 'node:http';

const server = http.createServer((req, res) => {
  const parts = [];
  req.on('data', (c) => parts.push(c));
  req.on('end', () => {
    const body = Buffer.from('{"weather":"sunny","asked":' + Buffer.concat(parts).toString() + '}');
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
    res.end(body);
  });
});
server.keepAliveTimeout = 60000;
server.listen(Number(process.argv[2]), '0.0.0.0', () => console.log('tool listening'));
