"use client";

import { useCallback, useEffect, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { useSession } from "@/components/session-provider";
import { CreateTokenForm } from "@/components/tokens/create-token-form";
import { TokenSecret } from "@/components/tokens/token-secret";
import { TokenTable } from "@/components/tokens/token-table";
import { api } from "@/lib/api";
import type { ApiToken, CreatedToken, TokenList } from "@/lib/types";

export default function TokensPage() {
  const { me, handleAuthError } = useSession();
  const [tokens, setTokens] = useState<ApiToken[] | null>(null);
  const [listError, setListError] = useState<unknown>(null);
  const [revokeError, setRevokeError] = useState<unknown>(null);
  const [created, setCreated] = useState<CreatedToken | null>(null);

  const loadTokens = useCallback(async () => {
    try {
      const list = await api.get<TokenList>("/v1/tokens");
      setTokens(list.tokens);
      setListError(null);
    } catch (error) {
      if (!handleAuthError(error)) setListError(error);
    }
  }, [handleAuthError]);

  useEffect(() => {
    void loadTokens();
  }, [loadTokens]);

  const handleCreated = (result: CreatedToken) => {
    setCreated(result);
    setRevokeError(null);
    void loadTokens();
  };

  const revoke = async (token: ApiToken) => {
    setRevokeError(null);
    try {
      await api.delete(`/v1/tokens/${encodeURIComponent(token.id)}`);
    } catch (error) {
      if (!handleAuthError(error)) setRevokeError(error);
    }
    await loadTokens();
  };

  return (
    <>
      <title>API tokens · Loadout</title>
      <header className="page-header">
        <h1 className="page-title">API tokens</h1>
        <p className="page-lead">
          Tokens let MCP clients such as Claude Code, Cursor, VS Code and Codex, and your scripts, call Loadout as you.
          A token can do only what its scopes allow, and only in the workspace you narrow it to.
        </p>
      </header>

      {created && <TokenSecret name={created.token.name} secret={created.secret} onDismiss={() => setCreated(null)} />}

      <section className="card" aria-labelledby="create-token-heading">
        <h2 id="create-token-heading" className="card-title">
          Create a token
        </h2>
        <CreateTokenForm workspaces={me.workspaces} onCreated={handleCreated} onError={handleAuthError} />
      </section>

      <section className="card" aria-labelledby="token-list-heading">
        <h2 id="token-list-heading" className="card-title">
          Your tokens
        </h2>
        <ErrorBanner error={revokeError} />
        {listError ? (
          <div className="stack">
            <ErrorBanner error={listError} />
            <button type="button" className="button" onClick={() => void loadTokens()}>
              Try again
            </button>
          </div>
        ) : tokens === null ? (
          <Loading label="Loading tokens…" />
        ) : (
          <TokenTable tokens={tokens} onRevoke={revoke} />
        )}
      </section>
    </>
  );
}
