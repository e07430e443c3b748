import { describe, expect, it } from "vitest";
import { type Lock, planSync, type WantedItem } from "./plan";

const item = (key: string, files: Record<string, string>, digest = `d-${key}`): WantedItem => ({
  key,
  digest,
  files: Object.entries(files).map(([rel, d]) => ({ rel, digest: d })),
});
const disk = (files: Record<string, string>) => (rel: string) => files[rel] ?? null;

describe("planSync", () => {
  it("writes what is new, and nothing when disk already matches", () => {
    const plan = planSync([item("skill:a", { "skills/a/SKILL.md": "1" })], {}, disk({}), false);
    expect(plan.write).toEqual([{ key: "skill:a", rel: "skills/a/SKILL.md" }]);
    expect(plan.lock["skill:a"]).toEqual({ digest: "d-skill:a", files: { "skills/a/SKILL.md": "1" } });
    const again = planSync(
      [item("skill:a", { "skills/a/SKILL.md": "1" })],
      plan.lock,
      disk({ "skills/a/SKILL.md": "1" }),
      false,
    );
    expect(again.write).toEqual([]);
    expect(again.unchanged).toBe(1);
  });

  it("writes a file changed in Loadout and removes one Loadout no longer has", () => {
    const lock: Lock = { "skill:a": { digest: "old", files: { "skills/a/SKILL.md": "1", "skills/a/x.md": "x" } } };
    const plan = planSync(
      [item("skill:a", { "skills/a/SKILL.md": "2" })],
      lock,
      disk({ "skills/a/SKILL.md": "1", "skills/a/x.md": "x" }),
      false,
    );
    expect(plan.write.map((w) => w.rel)).toEqual(["skills/a/SKILL.md"]);
    expect(plan.remove).toEqual(["skills/a/x.md"]);
    expect(plan.lock["skill:a"]?.files).toEqual({ "skills/a/SKILL.md": "2" });
  });

  it("removes an item removed in Loadout, keeping a file edited here", () => {
    const lock: Lock = {
      "skill:gone": { digest: "g", files: { "skills/gone/SKILL.md": "1", "skills/gone/n.md": "n" } },
    };
    const plan = planSync([], lock, disk({ "skills/gone/SKILL.md": "1", "skills/gone/n.md": "edited" }), false);
    expect(plan.remove).toEqual(["skills/gone/SKILL.md"]);
    expect(plan.kept).toEqual([{ rel: "skills/gone/n.md", reason: "edited" }]);
    expect(plan.lock["skill:gone"]).toEqual({ digest: "", files: { "skills/gone/n.md": "n" } });
    const forced = planSync([], lock, disk({ "skills/gone/SKILL.md": "1", "skills/gone/n.md": "edited" }), true);
    expect(forced.remove.sort()).toEqual(["skills/gone/SKILL.md", "skills/gone/n.md"]);
    expect(forced.lock).toEqual({});
  });

  it("keeps a local edit when Loadout changed the file too, and replaces it with force", () => {
    const lock: Lock = { "skill:a": { digest: "old", files: { "skills/a/SKILL.md": "1" } } };
    const wanted = [item("skill:a", { "skills/a/SKILL.md": "2" })];
    const kept = planSync(wanted, lock, disk({ "skills/a/SKILL.md": "mine" }), false);
    expect(kept.write).toEqual([]);
    expect(kept.kept).toEqual([{ rel: "skills/a/SKILL.md", reason: "edited" }]);
    // The lock keeps what the last sync wrote, so the next sync still sees the edit.
    expect(kept.lock["skill:a"]).toEqual({ digest: "", files: { "skills/a/SKILL.md": "1" } });
    const forced = planSync(wanted, lock, disk({ "skills/a/SKILL.md": "mine" }), true);
    expect(forced.write.map((w) => w.rel)).toEqual(["skills/a/SKILL.md"]);
    expect(forced.lock["skill:a"]?.digest).toBe("d-skill:a");
  });

  it("does not overwrite a file that was there before Loadout wrote any", () => {
    const plan = planSync(
      [item("skill:a", { "skills/a/SKILL.md": "1" })],
      {},
      disk({ "skills/a/SKILL.md": "theirs" }),
      false,
    );
    expect(plan.kept).toEqual([{ rel: "skills/a/SKILL.md", reason: "not-ours" }]);
    expect(plan.lock["skill:a"]).toEqual({ digest: "", files: {} });
  });

  it("writes again a file deleted here", () => {
    const lock: Lock = { "skill:a": { digest: "d-skill:a", files: { "skills/a/SKILL.md": "1" } } };
    const plan = planSync([item("skill:a", { "skills/a/SKILL.md": "1" })], lock, disk({}), false);
    expect(plan.write.map((w) => w.rel)).toEqual(["skills/a/SKILL.md"]);
  });
});
