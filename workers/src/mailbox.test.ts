import { describe, expect, it } from "vitest";
import { KEPT_MS, Mailbox } from "./mailbox";

describe("Mailbox", () => {
  it("hands a message to the take that waits for its key", async () => {
    const mailbox = new Mailbox<string>();
    const taken = mailbox.take("answer:1", 1_000);
    mailbox.post("answer:2", "not this one");
    mailbox.post("answer:1", "yes");
    expect(await taken).toBe("yes");
    expect(await mailbox.take("answer:2", 0)).toBe("not this one");
    expect(mailbox.busy).toBe(false);
  });

  it("keeps a message posted before anyone asked, for a minute", async () => {
    const mailbox = new Mailbox<string>();
    mailbox.post("cancel:7", "cancelled", 1_000);
    expect(await mailbox.take("cancel:7", 0, 1_000 + KEPT_MS - 1)).toBe("cancelled");
    // Taken once only.
    expect(await mailbox.take("cancel:7", 0, 1_000 + KEPT_MS - 1)).toBeNull();
    mailbox.post("cancel:8", "late", 1_000);
    expect(await mailbox.take("cancel:8", 0, 1_000 + KEPT_MS)).toBeNull();
  });

  it("answers null when nothing came within the bound, and forgets the take", async () => {
    const mailbox = new Mailbox<string>();
    expect(await mailbox.take("answer:1", 20)).toBeNull();
    expect(mailbox.busy).toBe(false);
    // A message after the take gave up is kept for the next one.
    mailbox.post("answer:1", "later");
    expect(await mailbox.take("answer:1", 0)).toBe("later");
  });
});
