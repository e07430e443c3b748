"use client";

import { useCallback, useEffect, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { useSession } from "@/components/session-provider";
import { approveItems, listItems, updateItem } from "@/lib/servers/client";
import { manifestSummary, skillChange } from "@/lib/servers/skill-diff";
import type { ItemEdit, ItemView } from "@/lib/servers/types";
import { useWorkspace } from "@/lib/workspace";

type Load = { kind: "loading" } | { kind: "ready"; items: ItemView[] } | { kind: "failed"; error: unknown };

const KIND_LABEL: Record<ItemView["kind"], string> = {
  resource: "Resource",
  template: "Template",
  prompt: "Prompt",
  skill: "Skill",
};

const PIN_LABEL: Record<ItemView["pin"], string> = {
  approved: "Approved",
  new: "New: waits for review",
  changed: "Changed: waits for review",
};

const text = (value: unknown) => (typeof value === "string" ? value : "");

// The server's resources, templates and prompts as last listed, with edits and approvals applied in place.
export function useItems(slug: string) {
  const ws = useWorkspace();
  const { handleAuthError } = useSession();
  const [load, setLoad] = useState<Load>({ kind: "loading" });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const reload = useCallback(async () => {
    try {
      setLoad({ kind: "ready", items: (await listItems(ws, slug)).items });
    } catch (caught) {
      if (!handleAuthError(caught)) setLoad({ kind: "failed", error: caught });
    }
  }, [ws, slug, handleAuthError]);

  useEffect(() => {
    void reload();
  }, [reload]);

  const run = useCallback(
    async (work: () => Promise<ItemView[]>) => {
      setBusy(true);
      setError(null);
      try {
        const updated = await work();
        setLoad((current) => {
          if (current.kind !== "ready") return current;
          const byKey = new Map(updated.map((item) => [`${item.kind} ${item.key}`, item]));
          return { kind: "ready", items: current.items.map((item) => byKey.get(`${item.kind} ${item.key}`) ?? item) };
        });
      } catch (caught) {
        if (!handleAuthError(caught)) setError(caught);
      } finally {
        setBusy(false);
      }
    },
    [handleAuthError],
  );

  const approve = (items?: ItemView[]) =>
    run(
      async () =>
        (
          await approveItems(
            ws,
            slug,
            items?.map(({ kind, key }) => ({ kind, key })),
          )
        ).items,
    );
  // The switch moves at once; the stored item replaces it when the server answers, and an error
  // puts the old value back.
  const edit = (item: ItemView, change: Omit<ItemEdit, "kind" | "key">) => {
    const same = (other: ItemView) => other.kind === item.kind && other.key === item.key;
    const put = (next: ItemView) =>
      setLoad((current) =>
        current.kind === "ready"
          ? { kind: "ready", items: current.items.map((other) => (same(other) ? next : other)) }
          : current,
      );
    put({ ...item, ...change });
    return run(async () => {
      try {
        return [await updateItem(ws, slug, { kind: item.kind, key: item.key, ...change })];
      } catch (caught) {
        put(item);
        throw caught;
      }
    });
  };

  return { load, reload, approve, edit, busy, error };
}

/**
 * The "Resources and prompts" card of a server's page: what the server offers besides tools, each
 * pinned like a tool. New and changed items are withheld from agents until approved here; in plan
 * and goal modes only the items marked safe there are offered.
 */
export function ServerItems({ items }: { items: ReturnType<typeof useItems> }) {
  const { load } = items;
  if (load.kind === "ready" && load.items.length === 0) return null;
  const waiting = load.kind === "ready" ? load.items.filter((item) => item.pin !== "approved") : [];
  return (
    <section className="card" aria-labelledby="items-heading" data-testid="server-items">
      <h2 id="items-heading" className="card-title">
        Resources and prompts
      </h2>
      {waiting.length > 0 && (
        <div className="banner tool-waiting" data-testid="items-waiting">
          <div className="tool-waiting-row">
            <p role="status">
              {waiting.length === 1 ? "1 item waits" : `${waiting.length} items wait`} for your review: agents do not
              see a new or changed resource, template, prompt or skill until you approve it.
            </p>
            <button
              type="button"
              className="button button-primary"
              disabled={items.busy}
              aria-busy={items.busy}
              onClick={() => void items.approve()}
            >
              Approve {waiting.length === 1 ? "it" : `all ${waiting.length}`}
            </button>
          </div>
        </div>
      )}
      <ErrorBanner error={items.error} />
      {load.kind === "loading" ? (
        <Loading label="Loading resources and prompts…" />
      ) : load.kind === "failed" ? (
        <div className="stack">
          <ErrorBanner error={load.error} />
          <button type="button" className="button" onClick={() => void items.reload()}>
            Try again
          </button>
        </div>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col">Review</th>
                <th scope="col">Enabled</th>
                <th scope="col">Plan mode</th>
              </tr>
            </thead>
            <tbody>
              {load.items.map((item) => (
                <ItemRow key={`${item.kind} ${item.key}`} item={item} items={items} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

// An upstream skill's files, and for a changed one what changed since approval: its frontmatter
// fields and the files added, removed or changed (the pin covers every file's digest and size).
function SkillReview({ item }: { item: ItemView }) {
  const change = item.pin === "changed" ? skillChange(item.approved, item.definition) : null;
  return (
    <>
      <p className="field-hint">{manifestSummary(item.definition)}</p>
      {change && (
        <ul className="field-hint" data-testid="item-change">
          {change.frontmatter.map((f) => (
            <li key={f.field}>
              {f.field}: was {f.before}, now {f.after}
            </li>
          ))}
          {change.added.map((uri) => (
            <li key={`+${uri}`}>
              Added <code>{uri}</code>
            </li>
          ))}
          {change.removed.map((uri) => (
            <li key={`-${uri}`}>
              Removed <code>{uri}</code>
            </li>
          ))}
          {change.changed.map((uri) => (
            <li key={`~${uri}`}>
              Changed <code>{uri}</code>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function ItemRow({ item, items }: { item: ItemView; items: ReturnType<typeof useItems> }) {
  const label = item.title ?? item.name;
  const before = item.approved ? text(item.approved.description) : "";
  return (
    <tr data-testid="item-row">
      <th scope="row">
        <span className="muted">{KIND_LABEL[item.kind]}</span> <strong>{label}</strong>
        <br />
        <code>{item.key}</code>
        {item.description && <p className="field-hint">{item.description}</p>}
        {item.kind === "skill" ? (
          <SkillReview item={item} />
        ) : (
          item.pin === "changed" &&
          before !== item.description && (
            <p className="field-hint" data-testid="item-change">
              Was: {before || "(no description)"}
            </p>
          )
        )}
      </th>
      <td>
        {PIN_LABEL[item.pin]}
        {item.pin !== "approved" && (
          <>
            {" "}
            <button
              type="button"
              className="button button-small"
              disabled={items.busy}
              onClick={() => void items.approve([item])}
              aria-label={`Approve ${label}`}
            >
              Approve
            </button>
          </>
        )}
        {item.problem && (
          <p className="field-hint" data-testid="item-problem">
            Withheld: {item.problem}. Test the server to check it again.
          </p>
        )}
      </td>
      <td>
        <input
          type="checkbox"
          checked={item.enabled}
          disabled={items.busy}
          aria-label={`${label} enabled`}
          onChange={(event) => void items.edit(item, { enabled: event.target.checked })}
        />
      </td>
      <td>
        <label>
          <input
            type="checkbox"
            checked={item.planSafe}
            disabled={items.busy}
            onChange={(event) => void items.edit(item, { planSafe: event.target.checked })}
          />{" "}
          Safe
        </label>
      </td>
    </tr>
  );
}
