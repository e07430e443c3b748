import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.LOADOUT_CHROMIUM ?? "/usr/bin/chromium";

/** Debian's Chromium, headless, with the flags this offline machine needs (see STACK.md). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not at ${CHROMIUM}: apt-get install -y chromium (or set LOADOUT_CHROMIUM).`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Signs up through the console's form, as a person would, and waits for the Tokens page. */
export async function signUpInBrowser(page: Page, url: string, email = "ada@example.com"): Promise<void> {
  await page.goto(`${url}/signup/`);
  await page.getByLabel("Name").fill("Ada Lovelace");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("correct horse battery");
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.waitForURL(`${url}/tokens/`);
}

/** A write to the REST API from inside the page, with its session cookie and CSRF token, as the console sends it. */
export function postAsPage(
  page: Page,
  url: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  return page.evaluate(
    async ({ url, body }) => {
      const csrf = decodeURIComponent(document.cookie.match(/lo_csrf=([^;]+)/)?.[1] ?? "");
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": csrf },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    { url, body },
  );
}
