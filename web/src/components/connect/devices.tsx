"use client";

import { useCallback, useEffect, useId, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { useSession } from "@/components/session-provider";
import { CLIENT_LABELS, type DeviceSync, forgetDevice, listDevices } from "@/lib/connect/devices";
import { formatDateTime, formatRelative } from "@/lib/format";
import { DataTable } from "../data-table";

const kindsText = (kinds: ("skill" | "persona")[]) =>
  kinds.map((k) => (k === "skill" ? "skills" : "personas")).join(" and ");

/**
 * Each device `loadout sync` ran on: what it wrote, for which clients, and when. For 7 days those
 * clients (sending the device's id) are not sent those kinds again in the MCP handshake.
 */
export function SyncedDevices() {
  const id = useId();
  const { handleAuthError } = useSession();
  const [devices, setDevices] = useState<DeviceSync[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [now, setNow] = useState(() => Date.now());

  const load = useCallback(async () => {
    try {
      setDevices((await listDevices()).devices);
      setNow(Date.now());
      setError(null);
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
    }
  }, [handleAuthError]);

  useEffect(() => {
    void load();
  }, [load]);

  const forget = async (device: DeviceSync) => {
    try {
      await forgetDevice(device.deviceId);
      await load();
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
    }
  };

  return (
    <section className="card" aria-labelledby={`${id}-devices`}>
      <h2 id={`${id}-devices`} className="card-title">
        Synced devices
      </h2>
      <p className="muted">
        <code>loadout sync</code> writes your active skills and personas into the folders Claude Code, Codex, Cursor and
        opencode read. For 7 days after a sync, those clients on that device are not sent the same items again in the
        MCP handshake.
      </p>
      <ErrorBanner error={error} />
      {devices === null ? (
        error ? null : (
          <Loading label="Loading devices…" />
        )
      ) : devices.length === 0 ? (
        <div className="empty-state">
          <p className="empty-title">No device has synced yet</p>
          <p>
            Run <code>npx loadout sync</code> in a project; the device shows here with what it wrote.
          </p>
        </div>
      ) : (
        <DataTable
          className="connect-table device-table"
          columns={["Device", "Clients", "Wrote", "Project", "Synced", { label: "Actions", hidden: true }]}
        >
          {devices.map((device) => (
            <tr key={device.deviceId} data-testid="device-row">
              <th scope="row" data-label="Device">
                <span>
                  <span className="client-name">{device.name}</span>{" "}
                  <span className="muted" title="The id the CLI keeps in its config folder">
                    {device.deviceId}
                  </span>
                </span>
              </th>
              <td data-label="Clients">
                {device.readers.length === 0 ? (
                  <span className="muted">none</span>
                ) : (
                  device.readers.map((r) => (
                    <div key={r.client}>
                      {CLIENT_LABELS[r.client] ?? r.client} <span className="muted">({kindsText(r.kinds)})</span>
                    </div>
                  ))
                )}
              </td>
              <td data-label="Wrote">
                {device.written.skill} skill{device.written.skill === 1 ? "" : "s"}, {device.written.persona} persona
                {device.written.persona === 1 ? "" : "s"}
              </td>
              <td data-label="Project">
                {device.project ? (
                  <code className="connect-path">{device.project}</code>
                ) : (
                  <span className="muted">—</span>
                )}
              </td>
              <td data-label="Synced">
                <time dateTime={device.syncedAt} title={formatDateTime(device.syncedAt)}>
                  {formatRelative(device.syncedAt, now)}
                </time>{" "}
                {device.fitting ? (
                  <span className="chip" title="Its clients are not sent these items again in the handshake">
                    fitted
                  </span>
                ) : (
                  <span className="chip" title="Older than 7 days: its clients get the whole list again">
                    stale
                  </span>
                )}
              </td>
              <td data-label="Actions">
                <button
                  type="button"
                  className="button button-small"
                  onClick={() => void forget(device)}
                  aria-label={`Forget ${device.name}`}
                >
                  Forget
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
