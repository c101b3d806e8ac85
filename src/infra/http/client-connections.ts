import type { Server } from 'node:net';
import { clientNetworkOf } from './address-policy.js';

/**
 * At most `limit` open connections from one client network (an IPv4 address, an IPv6 /64): one
 * past it is closed at once, before a byte of it is read. Each connection holds memory and a file
 * descriptor until its timeouts run out, so one client opening thousands (slow requests, idle
 * keep-alives) would otherwise starve everyone else. `refused` hears of the first connection
 * refused while a network is over its limit, not of each.
 */
export function capConnectionsPerClient(server: Server, limit: number, refused: (network: string) => void): void {
  const open = new Map<string, number>();
  const told = new Set<string>();
  server.on('connection', (socket) => {
    const network = clientNetworkOf(socket.remoteAddress ?? '');
    const count = (open.get(network) ?? 0) + 1;
    if (count > limit) {
      socket.destroy();
      if (!told.has(network)) refused(network);
      told.add(network);
      return;
    }
    open.set(network, count);
    socket.once('close', () => {
      const left = (open.get(network) ?? 1) - 1;
      if (left > 0) open.set(network, left);
      else open.delete(network);
      if (left < limit) told.delete(network);
    });
  });
}
