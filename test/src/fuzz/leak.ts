/** What no answer may carry: SQL, the driver's messages, a stack frame. */
export const LEAK =
  /\b(select|insert|update|delete)\b[^"]*\b(from|into|set)\b|Failed query|params:|\bat .+:\d+:\d+|invalid byte sequence|0x00/i;
