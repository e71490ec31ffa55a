// A test host's TLS front: terminates TLS on <listenPort> with <cert>/<key> and relays each
// connection's plain bytes to <targetHost>:<targetPort>. Run inside a test host's network
// namespace (OutsideHost.startInNetwork), it makes a server of the test JVM look like an
// HTTPS host somewhere on the internet to the egress gateway.
//   node tls-relay.mjs <listenPort> <cert.pem> <key.pem> <targetHost> <targetPort>
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';

const [listenPort, cert, key, targetHost, targetPort] = process.argv.slice(2);
const server = tls.createServer(
  { cert: fs.readFileSync(cert), key: fs.readFileSync(key) },
  (client) => {
    const upstream = net.connect(Number(targetPort), targetHost);
    client.pipe(upstream).pipe(client);
    const close = () => { client.destroy(); upstream.destroy(); };
    client.on('error', close);
    upstream.on('error', close);
  });
server.listen(Number(listenPort), '0.0.0.0', () => console.log('relay listening'));
