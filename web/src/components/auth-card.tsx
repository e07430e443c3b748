import type { ReactNode } from "react";
import { Brand } from "./brand";

type AuthCardProps = {
  title: string;
  subtitle?: ReactNode;
  footer?: ReactNode;
  children: ReactNode;
};

export function AuthCard({ title, subtitle, footer, children }: AuthCardProps) {
  return (
    <main className="auth-page">
      <div className="auth-card">
        <Brand />
        <h1 className="auth-title">{title}</h1>
        {subtitle && <p className="auth-subtitle">{subtitle}</p>}
        {children}
      </div>
      {footer && <p className="auth-footer">{footer}</p>}
    </main>
  );
}
