export { FrontDoor, PERMISSION_OPTIONS, SESSION_BUSY, serviceError, type AgentboxPort, type FrontDoorOptions, type StreamEvent } from "./front-door.js";
export { parseOptions, UsageError, HelpRequested, USAGE, type CommandOptions } from "./options.js";
export { initializeResult, PROTOCOL_VERSION, VERSION } from "./initialize.js";
export { promptText, UnsupportedContent } from "./prompt.js";
export { ChunkTranslator, toolTitleAndKind, parseArguments, contentText, type AguiChunk, type AguiInterrupt, type RunEnd, type Translated } from "./translate.js";
export { splitLiveTurn, transcriptUpdates, inputHistory, type TranscriptMessage, type TranscriptPart, type InputMessage } from "./transcript.js";
export { serve } from "./serve.js";
