/** The parts of workerd's `cloudflare:workers` module the proxy Worker uses (the runtime provides it). */
declare module "cloudflare:workers" {
  export interface DurableObjectStorage {
    getAlarm(): Promise<number | null>;
    setAlarm(scheduledTime: number): Promise<void>;
  }
  export interface DurableObjectState {
    readonly storage: DurableObjectStorage;
  }
  export interface ExecutionContext {
    waitUntil(promise: Promise<unknown>): void;
  }
  export abstract class DurableObject<Env = unknown> {
    protected readonly ctx: DurableObjectState;
    protected readonly env: Env;
    constructor(ctx: DurableObjectState, env: Env);
  }
  export abstract class WorkerEntrypoint<Env = unknown> {
    protected readonly ctx: ExecutionContext;
    protected readonly env: Env;
    constructor(ctx: ExecutionContext, env: Env);
  }
}
