/**
 * What `loadout sync` does in one client's folder, decided from three facts per file: what
 * Loadout has now, what the lock file says the last sync wrote, and what is on disk. Only what
 * changed is written; what the last sync wrote and Loadout no longer has is removed; a file that
 * differs from what the last sync wrote (edited here, or there before Loadout) is kept and
 * reported, unless `force`.
 */
export interface WantedItem {
  key: string;
  digest: string;
  files: ReadonlyArray<{ rel: string; digest: string }>;
}

export interface LockedItem {
  digest: string;
  files: Readonly<Record<string, string>>;
}

export type Lock = Readonly<Record<string, LockedItem>>;

export interface SyncPlan {
  write: Array<{ key: string; rel: string }>;
  remove: string[];
  /** Files left as they are because they were changed here. */
  kept: Array<{ rel: string; reason: "edited" | "not-ours" }>;
  unchanged: number;
  lock: Record<string, LockedItem>;
}

export function planSync(
  wanted: readonly WantedItem[],
  lock: Lock,
  onDisk: (rel: string) => string | null,
  force: boolean,
): SyncPlan {
  const plan: SyncPlan = { write: [], remove: [], kept: [], unchanged: 0, lock: {} };
  const wantedKeys = new Set(wanted.map((w) => w.key));

  for (const item of wanted) {
    const locked = lock[item.key];
    const files: Record<string, string> = {};
    let whole = true;
    let changed = false;
    for (const file of item.files) {
      const here = onDisk(file.rel);
      const before = locked?.files[file.rel];
      if (here === file.digest) {
        files[file.rel] = file.digest;
        continue;
      }
      changed = true;
      if (here === null || here === before || force) {
        plan.write.push({ key: item.key, rel: file.rel });
        files[file.rel] = file.digest;
      } else {
        plan.kept.push({ rel: file.rel, reason: before === undefined ? "not-ours" : "edited" });
        // Still recorded as the last sync wrote it, so the next sync sees the edit again.
        if (before !== undefined) files[file.rel] = before;
        whole = false;
      }
    }
    const still = new Set(item.files.map((f) => f.rel));
    for (const [rel, digest] of Object.entries(locked?.files ?? {})) {
      if (still.has(rel)) continue;
      changed = true;
      if (!removeOrKeep(plan, rel, digest, onDisk(rel), force)) {
        files[rel] = digest;
        whole = false;
      }
    }
    if (!changed) plan.unchanged += 1;
    plan.lock[item.key] = { digest: whole ? item.digest : "", files };
  }

  for (const [key, locked] of Object.entries(lock)) {
    if (wantedKeys.has(key)) continue;
    const left: Record<string, string> = {};
    for (const [rel, digest] of Object.entries(locked.files))
      if (!removeOrKeep(plan, rel, digest, onDisk(rel), force)) left[rel] = digest;
    if (Object.keys(left).length > 0) plan.lock[key] = { digest: "", files: left };
  }
  return plan;
}

/** Removes a file the last sync wrote, unless it was edited here since. True when nothing is left. */
function removeOrKeep(plan: SyncPlan, rel: string, written: string, here: string | null, force: boolean): boolean {
  if (here === null) return true;
  if (here === written || force) {
    plan.remove.push(rel);
    return true;
  }
  plan.kept.push({ rel, reason: "edited" });
  return false;
}
