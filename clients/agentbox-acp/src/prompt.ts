/**
 * A `session/prompt`'s content blocks as the one text an agentbox run takes.
 *
 * The agent works in its sandbox and cannot open the editor's files, so only text is taken:
 * `text` blocks as they are, a `resource_link` (which every ACP agent must accept) as its URI on a
 * line of its own, an embedded text `resource` as its text. Images, audio and binary resources are
 * refused with `invalid_params` (`promptCapabilities` says none of them is supported).
 */
import type { ContentBlock } from "@agentclientprotocol/sdk";

export class UnsupportedContent extends Error {
  constructor(readonly blockType: string) {
    super(`agentbox-acp takes text prompts only; a ${blockType} block cannot reach the sandboxed agent`);
    this.name = "UnsupportedContent";
  }
}

export function promptText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link":
        parts.push(block.uri);
        break;
      case "resource": {
        const resource = block.resource as { text?: unknown; uri?: string };
        if (typeof resource.text !== "string") throw new UnsupportedContent("binary resource");
        parts.push(resource.text);
        break;
      }
      default:
        throw new UnsupportedContent(block.type);
    }
  }
  const text = parts.join("\n");
  if (!text.trim()) throw new UnsupportedContent("empty");
  return text;
}
