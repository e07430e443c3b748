/**
 * A bounded map of values, each kept with the stamp (see Freshness) it was read under: a value is
 * served only with the same stamp, and not past `ttlMs` whatever the stamp says. Past `max`
 * entries the oldest stored go first (Map keeps insertion order).
 */
export class StampedCache<V> {
  private readonly entries = new Map<string, { stamp: string; value: V; storedAt: number }>();

  constructor(
    private readonly max: number,
    private readonly ttlMs = 60_000,
  ) {}

  get(key: string, stamp: string, now: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.stamp !== stamp || now - entry.storedAt > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, stamp: string, value: V, now: number): void {
    this.entries.delete(key);
    this.entries.set(key, { stamp, value, storedAt: now });
    if (this.entries.size > this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
