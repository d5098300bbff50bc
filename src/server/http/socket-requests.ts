import type { Socket } from 'node:net';

/**
 * What the HTTP listener and the app know of one connection's request in flight, under the Node
 * adapter: its request id (so that an answer the listener writes itself, after the server's request
 * timeout or a half-close mid-body, names the request the log names), and the status the listener
 * answered it with (so that the app logs and counts that status, not 499: the client did not go away).
 */
const requestIds = new WeakMap<Socket, string>();
const answered = new WeakMap<Socket, { status: number; why: string }>();

export function noteRequestId(socket: Socket, requestId: string): void {
  requestIds.set(socket, requestId);
}

/** The request in flight on `socket` is over (its answer left): the next one has its own id. */
export function forgetRequest(socket: Socket): void {
  requestIds.delete(socket);
}

export function requestIdOf(socket: Socket): string | undefined {
  return requestIds.get(socket);
}

export function markAnswered(socket: Socket, status: number, why: string): void {
  answered.set(socket, { status, why });
}

export function answeredByListener(socket: Socket | null | undefined): { status: number; why: string } | undefined {
  return socket ? answered.get(socket) : undefined;
}
