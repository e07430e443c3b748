export function Brand() {
  return (
    <span className="brand">
      <svg className="brand-mark" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
        <rect x="3" y="3" width="18" height="18" rx="5" />
        <path d="M9 7.5v9h6" />
      </svg>
      <span className="brand-name">Loadout</span>
    </span>
  );
}
