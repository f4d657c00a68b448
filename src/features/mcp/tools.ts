/**
 * The tools of `svc mcp` (without the MCP SDK, so a wrong --tools is refused before it loads): the
 * read tools always, the write tools only with --allow-write, narrowed by --tools.
 */
import { UsageError } from '../../core/errors.js';
import { apiReadTools } from './api-tools.js';
import { svcReadTools } from './svc-tools.js';
import type { Tool } from './tool.js';
import { writeTools } from './write-tools.js';

export interface McpOptions {
  allowWrite: boolean;
  /** only these tools (names as listed) */
  tools?: string[];
}

/** Every tool of svc, in the order they are listed. */
async function allTools(): Promise<Tool[]> {
  return [...(await apiReadTools()), ...(await svcReadTools()), ...(await writeTools())];
}

/** The tools this server lists: the write tools only with --allow-write, narrowed by --tools. */
export async function chosenTools(options: McpOptions): Promise<Tool[]> {
  const all = await allTools();
  if (options.tools) {
    const unknown = options.tools.filter((name) => !all.some((tool) => tool.name === name));
    if (unknown.length > 0) throw new UsageError(`--tools: no tool named ${unknown.join(', ')} (tools: ${all.map((tool) => tool.name).join(', ')})`);
    const writes = options.tools.filter((name) => !options.allowWrite && all.find((tool) => tool.name === name)!.write);
    if (writes.length > 0) throw new UsageError(`--tools: ${writes.join(', ')} changes data and needs --allow-write`);
  }
  return all.filter((tool) => (options.allowWrite || !tool.write) && (!options.tools || options.tools.includes(tool.name)));
}
