/**
 * `agentry mcp`: the MCP tools over stdio, for desktop MCP clients. AGENTRY_URL names the service
 * (default http://localhost:8080); AGENTRY_TOKEN is a session token or API key (without one only
 * the public tools work). Nothing but MCP messages may go to stdout, so problems go to stderr.
 */
import { runStdioServer } from './modules/mcp/index.ts';

const url = process.env.AGENTRY_URL && process.env.AGENTRY_URL !== '' ? process.env.AGENTRY_URL : 'http://localhost:8080';
try {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
} catch {
  process.stderr.write(`AGENTRY_URL must be an http(s) URL (got "${url}")\n`);
  process.exit(2);
}
await runStdioServer({ url, token: process.env.AGENTRY_TOKEN || null });
