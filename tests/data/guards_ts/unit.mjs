// Test driver for runtime.js: reads a JSON list of operations (argv[2]) and prints one JSON array of results.
import { readFileSync } from "node:fs";
import { canonicalJson, checkFormat, compactJson, fingerprint, numberText, validate } from "./runtime.js";

const ops = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = ops.map((op) => {
  switch (op.op) {
    case "fingerprint":
      return fingerprint(op.tool, op.args);
    case "canonical":
      return canonicalJson(op.value);
    case "number":
      return numberText(op.value);
    case "format":
      return checkFormat(op.format, op.value);
    case "validate": {
      const violations = [];
      validate(op.schema, op.value, "", "the schema", violations);
      return violations;
    }
    default:
      throw new Error("unknown op " + op.op);
  }
});
// compactJson writes numbers as SPEC 4.9 does (1e+16, not 10000000000000000), so Python reads floats back as floats
process.stdout.write(compactJson(out));
