// server.js - a small, well-behaved Node.js HTTP service, the same one
// under drover (`command: [node], args: [server.js]`) and under pm2 in
// cluster mode (bench/reload). No dependencies.
//
//   GET /         200 "<VERSION>\n"  (VERSION from the environment, "v1")
//   GET /healthz  200 "ok\n", 503 once it drains (readiness goes first)
//   else          404
//
// It listens on 127.0.0.1:$PORT (drover gives PORT; pm2 gives it from the
// ecosystem file), keep-alive on. Under pm2 it says `ready` once it
// listens (`wait_ready: true`).
//
// Graceful stop, on SIGTERM (drover, Kubernetes) or SIGINT (pm2's default
// kill signal): it stops accepting connections; a request that arrives in
// the next LINGER_MS on an open keep-alive connection is still answered,
// with `Connection: close`, so that the client reconnects cleanly (to
// another instance) instead of racing a close; then the connections with
// no request in flight (idle keep-alive ones, and those that never sent
// one) are closed, in-flight requests finish, and it exits 0 once no
// connection is left. The supervisor's timeout (terminationGracePeriod-
// Seconds, pm2's kill_timeout) bounds all of it.
'use strict';

const http = require('http');
const net = require('net');

const LINGER_MS = 1000;
const version = process.env.VERSION || 'v1';
const port = Number(process.env.PORT || 0);
let draining = false;

// Every open connection and how many requests it has in flight: at the
// end of the linger, those with none are closed. (http.Server's
// closeIdleConnections() leaves out a connection that has not sent a
// request yet, which would then hold the process for headersTimeout.)
const conns = new Map();

const server = http.createServer((req, res) => {
	const s = req.socket;
	conns.set(s, (conns.get(s) || 0) + 1);
	res.on('close', () => {
		if (conns.has(s)) conns.set(s, conns.get(s) - 1);
	});
	if (draining) res.setHeader('Connection', 'close');
	let code = 404;
	let body = 'not found\n';
	if (req.url === '/') {
		code = 200;
		body = version + '\n';
	} else if (req.url === '/healthz') {
		code = draining ? 503 : 200;
		body = draining ? 'draining\n' : 'ok\n';
	}
	res.writeHead(code, {
		'Content-Type': 'text/plain',
		'Content-Length': Buffer.byteLength(body),
	});
	res.end(body);
});
server.keepAliveTimeout = 30000;
server.on('connection', (s) => {
	conns.set(s, 0);
	s.on('close', () => conns.delete(s));
});

server.listen(port, '127.0.0.1', () => {
	const a = server.address();
	console.log(`server.js ${version} pid ${process.pid} listening on ` +
		    `${a.address}:${a.port}`);
	if (process.send) process.send('ready'); // pm2 wait_ready
});

function stop(sig) {
	if (draining) return;
	draining = true;
	console.log(`server.js pid ${process.pid}: ${sig}, draining`);
	// net.Server's close stops accepting only; http.Server's own close()
	// (Node >= 19) would also close idle keep-alive connections at once,
	// racing a request the client is sending on them.
	net.Server.prototype.close.call(server, () => {
		console.log(`server.js pid ${process.pid}: drained, exiting`);
		process.exit(0);
	});
	setTimeout(() => {
		for (const [s, inflight] of conns)
			if (inflight === 0) s.destroy();
	}, LINGER_MS).unref();
}

process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
// pm2 on Windows (shutdown_with_message) asks over IPC instead.
process.on('message', (m) => {
	if (m === 'shutdown') stop('shutdown message');
});
