// The start-up floor of bench/startup.ts: a bare Fastify answering /healthz on PORT, plain
// JavaScript started by `node` exactly as the built linkvault is (no tsx, no build step).
import process from 'node:process';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
