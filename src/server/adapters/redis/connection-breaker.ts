/**
 * What node-redis's sockets take as their `signal` (net.connect's option, which Node accepts from any
 * object shaped like an AbortSignal): each socket of the client registers its abort listener here, so
 * `break()` destroys every socket the client has open or is opening. node-redis sees a socket error,
 * rejects what was waiting for a reply on it, and reconnects on its own with a new socket.
 */
export class ConnectionBreaker {
  readonly aborted = false;
  reason: unknown = undefined;
  private readonly listeners = new Set<() => void>();

  addEventListener(_type: 'abort', listener: () => void): void {
    this.listeners.add(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.listeners.delete(listener);
  }

  /** Tears down every connection registered so far; returns how many. */
  break(reason: Error): number {
    this.reason = reason;
    const listeners = [...this.listeners];
    this.listeners.clear();
    for (const listener of listeners) listener();
    return listeners.length;
  }
}
