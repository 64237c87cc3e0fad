/** A value as YAML flow text, for a fix a person pastes into the description. */
export function flowYaml(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flowYaml).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return entries.length === 0 ? '{}' : `{ ${entries.map(([k, v]) => `${k}: ${flowYaml(v)}`).join(', ')} }`;
  }
  if (typeof value === 'string')
    return /^[A-Za-z_/][A-Za-z0-9._/-]*$/.test(value) && !/^(true|false|null|yes|no|on|off|y|n)$/i.test(value) ? value : JSON.stringify(value);
  return String(value);
}
