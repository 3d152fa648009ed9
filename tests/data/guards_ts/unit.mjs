// Test driver for runtime.js: reads a JSON list of operations (argv[2]) and prints one JSON array of results.
import { readFileSync } from "node:fs";
import { canonicalJson, checkFormat, fingerprint, numberText, validate } from "./runtime.js";

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
process.stdout.write(JSON.stringify(out));
