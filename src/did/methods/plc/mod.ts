/**
 * did:plc's verification and rendering, loaded by `../plc.ts` on first use (so that the start of
 * the service pays nothing for DAG-CBOR, multiformats and the curves): reading an audit log,
 * verifying it, and the document of a state.
 *
 * @module
 */
export {
  type PlcAnyOperation,
  type PlcAuditEntry,
  type PlcLegacyCreate,
  type PlcOperation,
  readAuditLog,
} from "./audit_entry.ts";
export { plcDocument } from "./document.ts";
export { operationBytes } from "./op_bytes.ts";
export {
  type PlcLogCheck,
  type PlcRule,
  type PlcRuleFailure,
  type PlcState,
  RECOVERY_WINDOW_MS,
  type VerifiedPlcLog,
  verifyPlcLog,
} from "./verify_log.ts";
