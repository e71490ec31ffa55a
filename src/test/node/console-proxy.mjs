// An HTTP proxy on loopback in front of the service, through which the browser loads the
// console. It forwards everything, and cuts the FIRST run-events stream after `cutAfter`
// TEXT_MESSAGE_CONTENT events (in the middle of the next piece of the stream), so the console
// must reconnect; it records the Last-Event-ID header of every events request it forwards.
import http from "node:http";

export async function startConsoleProxy(target, { cutAfter }) {
  const upstream = new URL(target);
  const state = { eventsRequests: [], cut: false };
  const server = http.createServer((req, res) => {
    const isEvents = /^\/api\/v1\/runs\/[^?]+\/events(\?|$)/.test(req.url);
    const number = isEvents ? state.eventsRequests.push({ lastEventId: req.headers["last-event-id"] ?? null }) : 0;
    const out = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
      },
      (up) => {
        res.writeHead(up.statusCode, up.headers);
        if (!(isEvents && number === 1 && up.statusCode === 200)) {
          up.pipe(res);
          return;
        }
        let text = "";
        up.on("data", (data) => {
          if (state.cut) return;
          text += data.toString("utf8");
          const contents = text.split("event: TEXT_MESSAGE_CONTENT").length - 1;
          if (contents < cutAfter) {
            res.write(data);
            return;
          }
          // Forward half of this piece, so the client may hold half an event, then drop both ends.
          state.cut = true;
          res.write(data.subarray(0, Math.max(1, Math.floor(data.length / 2))));
          setTimeout(() => {
            res.socket?.destroy();
            up.destroy();
          }, 50);
        });
        up.on("end", () => res.end());
      },
    );
    out.on("error", () => res.destroy());
    req.pipe(out);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    state,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
