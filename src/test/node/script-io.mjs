// What the client scripts share: their one argument is a JSON object of options; they print one
// JSON object on stdout (the IT parses the last line) and exit 0, or print {"error"} and exit 1.
export function options(required) {
  let opts;
  try {
    opts = JSON.parse(process.argv[2] ?? "");
  } catch {
    fail(new Error(`usage: node ${process.argv[1]} '<JSON options>'`));
  }
  for (const name of required) {
    if (opts[name] === undefined) fail(new Error(`option ${name} is required`));
  }
  return opts;
}

export function agentUrl(baseUrl, agentId) {
  return `${baseUrl.replace(/\/$/, "")}/api/v1/agents/${encodeURIComponent(agentId)}`;
}

/** An AbortSignal that fires after `ms`, so that a hung stream ends the script instead. */
export function deadline(ms) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no end within ${ms} ms`)), ms);
  timer.unref();
  return controller.signal;
}

// The clients' warnings (e.g. @ag-ui/client stripping fields it does not know) go into the result
// instead of stderr, so the test can show them next to what it checks.
const warnings = [];
console.warn = (...args) => warnings.push(args.map(String).join(" "));

export function emit(result) {
  process.stdout.write(JSON.stringify({ ...result, warnings }) + "\n");
}

export function fail(error) {
  emit({ error: String(error?.stack ?? error) });
  process.exit(1);
}

process.on("unhandledRejection", fail);
