/** The CLI's stored settings: `$XDG_CONFIG_HOME/agentry/config.json` (default `~/.config`), mode 0600. */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface StoredConfig {
  url?: string;
  token?: string;
}

export function configPath(env: Record<string, string | undefined>): string {
  if (env.AGENTRY_CONFIG) return env.AGENTRY_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'agentry', 'config.json');
}

export function readConfig(env: Record<string, string | undefined>): StoredConfig {
  try {
    const parsed = JSON.parse(readFileSync(configPath(env), 'utf8')) as StoredConfig;
    return parsed && typeof parsed === 'object' ? parsed : {};
  } catch {
    return {};
  }
}

export function writeConfig(env: Record<string, string | undefined>, config: StoredConfig): string {
  const path = configPath(env);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

export function removeToken(env: Record<string, string | undefined>): void {
  const config = readConfig(env);
  delete config.token;
  if (Object.keys(config).length === 0) rmSync(configPath(env), { force: true });
  else writeConfig(env, config);
}
