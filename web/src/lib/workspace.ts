// The workspace the console works in. Only the personal one (`me`) for now; when teams arrive a
// switcher replaces this hook, and every page that asks it follows.
export const PERSONAL_WORKSPACE = "me";

export function useWorkspace(): string {
  return PERSONAL_WORKSPACE;
}
