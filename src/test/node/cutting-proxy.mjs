// A TCP proxy on loopback in front of the service that cuts the first connection in the middle
// of its response: it forwards the response until `cutWhen(textSoFar)` holds, sends a part of that
// last piece (so the client may be left with half an event), then destroys both sockets. Every
// later connection passes untouched. `connections` counts the connections the client opened, so a
// test can tell that the cut really happened and the client came back.
import net from "node:net";

export async function startCuttingProxy(target, cutWhen) {
  const upstreamPort = Number(target.port || (target.protocol === "https:" ? 443 : 80));
  const state = { connections: 0, cut: false, bytesBeforeCut: 0 };
  const sockets = new Set();
  const server = net.createServer((client) => {
    const number = ++state.connections;
    const upstream = net.connect(upstreamPort, target.hostname);
    sockets.add(client);
    sockets.add(upstream);
    const destroy = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", destroy);
    upstream.on("error", destroy);
    client.on("close", () => {
      sockets.delete(client);
      upstream.destroy();
    });
    upstream.on("close", () => {
      sockets.delete(upstream);
      client.end();
    });
    client.pipe(upstream);
    if (number !== 1) {
      upstream.pipe(client);
      return;
    }
    let text = "";
    upstream.on("data", (data) => {
      if (state.cut) {
        return;
      }
      text += data.toString("latin1");
      if (!cutWhen(text)) {
        state.bytesBeforeCut += data.length;
        client.write(data);
        return;
      }
      state.cut = true;
      const part = data.subarray(0, Math.max(1, Math.floor(data.length / 2)));
      state.bytesBeforeCut += part.length;
      client.write(part, destroy);
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
