// DIDs written by @did-plc/lib (the PLC reference library) for the did:plc tests: through a real
// PLC directory (@did-plc/server), which checks every operation as it accepts it, or (the legacy
// `create` genesis, which today's directories no longer accept, and long logs for the benchmark)
// as audit logs made here with the library's CIDs.
//
// Keys are made with @atproto/crypto 0.4.3, whose P-256 signatures are low-S as the PLC
// specification requires (the 0.1.0 the library bundles signs P-256 with WebCrypto: high-S half of
// the time).
import * as plc from '@did-plc/lib'
import { P256Keypair, Secp256k1Keypair } from '@atproto/crypto'
import { formatDidDoc } from './reference_document.mjs'

const k256 = () => Secp256k1Keypair.create()
const p256 = () => P256Keypair.create()
const cidOf = async (op) => (await plc.getLastOpWithCid([op])).cid

/**
 * The reference states of an audit log: for each valid (not nullified) operation, in order, the
 * document the reference implementation renders for the log up to it (null after a tombstone).
 * `validateOperationLog` re-verifies every prefix (genesis hash, signatures).
 */
export async function referenceStates(did, auditLog) {
  const valid = auditLog.filter((e) => !e.nullified)
  const states = []
  for (let i = 0; i < valid.length; i++) {
    const data = await plc.validateOperationLog(did, valid.slice(0, i + 1).map((e) => e.operation))
    states.push({
      cid: valid[i].cid,
      createdAt: valid[i].createdAt,
      document: data === null ? null : formatDidDoc(data),
    })
  }
  return states
}

/** The current reference rendering of one operation's state (null for a tombstone). */
export function renderOperation(did, operation) {
  const data = plc.opToData(did, operation)
  return data === null ? null : formatDidDoc(data)
}

/** Writes the scenarios through the directory at `url`; returns each with its audit log. */
export async function writeScenarios(url) {
  const client = new plc.Client(url)
  let last = 0
  // The in-memory directory stamps createdAt with its clock: one operation per millisecond.
  const send = async (did, op) => {
    while (Date.now() <= last) await new Promise((r) => setTimeout(r, 1))
    await client.sendOperation(did, op)
    last = Date.now()
    return op
  }
  const out = []
  const record = async (name, did, keys, extra = {}) => {
    const auditLog = await client.getAuditableLog(did)
    out.push({ name, did, keys, auditLog, states: await referenceStates(did, auditLog), ...extra })
  }

  // fresh: one P-256 rotation key, a P-256 signing key.
  {
    const rotation = await p256()
    const signing = await p256()
    const { op, did } = await plc.createOp({
      signingKey: signing.did(),
      handle: 'fresh.test',
      pds: 'https://pds.fresh.test',
      rotationKeys: [rotation.did()],
      signer: rotation,
    })
    await send(did, op)
    await record('fresh', did, { rotation: [rotation.did()], signing: signing.did() })
  }

  // updated twice: handle and PDS, then the signing key (by the second rotation key).
  {
    const r0 = await k256()
    const r1 = await p256()
    const signing = await k256()
    const signing2 = await p256()
    const { op: genesis, did } = await plc.createOp({
      signingKey: signing.did(),
      handle: 'updated.test',
      pds: 'https://pds1.updated.test',
      rotationKeys: [r0.did(), r1.did()],
      signer: r0,
    })
    await send(did, genesis)
    const first = await send(
      did,
      await plc.createUpdateOp(genesis, r0, (n) => ({
        ...n,
        alsoKnownAs: ['at://renamed.updated.test'],
        services: {
          atproto_pds: { type: 'AtprotoPersonalDataServer', endpoint: 'https://pds2.updated.test' },
        },
      })),
    )
    const second = await send(did, await plc.updateAtprotoKeyOp(first, r1, signing2.did()))
    // Not accepted by the directory: signed by the signing key, which is no rotation key.
    const forged = await plc.updateHandleOp(second, signing2, 'forged.updated.test')
    await record(
      'updated twice',
      did,
      { rotation: [r0.did(), r1.did()], signing: signing2.did(), firstSigning: signing.did() },
      { forged: { operation: forged, cid: (await cidOf(forged)).toString() } },
    )
  }

  // rotation-key change: the old key hands over to two new ones, which then update.
  {
    const old = await k256()
    const next0 = await p256()
    const next1 = await k256()
    const signing = await k256()
    const { op: genesis, did } = await plc.createOp({
      signingKey: signing.did(),
      handle: 'rotated.test',
      pds: 'https://pds.rotated.test',
      rotationKeys: [old.did()],
      signer: old,
    })
    await send(did, genesis)
    const rotated = await send(
      did,
      await plc.updateRotationKeysOp(genesis, old, [next0.did(), next1.did()]),
    )
    const after = await send(did, await plc.updateHandleOp(rotated, next1, 'after.rotated.test'))
    // Not accepted by the directory: the old rotation key no longer may sign.
    const forged = await plc.updateHandleOp(after, old, 'old-key.rotated.test')
    await record(
      'rotation-key change',
      did,
      { rotation: [next0.did(), next1.did()], oldRotation: old.did(), signing: signing.did() },
      { forged: { operation: forged, cid: (await cidOf(forged)).toString() } },
    )
  }

  // tombstoned.
  {
    const rotation = await k256()
    const { op: genesis, did } = await plc.createOp({
      signingKey: (await k256()).did(),
      handle: 'gone.test',
      pds: 'https://pds.gone.test',
      rotationKeys: [rotation.did()],
      signer: rotation,
    })
    await send(did, genesis)
    await send(did, await plc.tombstoneOp(await cidOf(genesis), rotation))
    await record('tombstoned', did, { rotation: [rotation.did()] })
  }

  // recovery: the lower rotation key changes the handle, the higher one undoes it (nullification),
  // and the DID goes on from the recovered state.
  {
    const recovery = await k256()
    const regular = await k256()
    const { op: genesis, did } = await plc.createOp({
      signingKey: (await p256()).did(),
      handle: 'recovered.test',
      pds: 'https://pds.recovered.test',
      rotationKeys: [recovery.did(), regular.did()],
      signer: recovery,
    })
    await send(did, genesis)
    await send(did, await plc.updateHandleOp(genesis, regular, 'hijacked.test'))
    const recovered = await send(did, await plc.updatePdsOp(genesis, recovery, 'https://pds2.recovered.test'))
    await send(did, await plc.updateHandleOp(recovered, recovery, 'recovered-again.test'))
    await record('recovery', did, { rotation: [recovery.did(), regular.did()] })
  }
  return out
}

/**
 * A DID with a legacy `create` genesis (signed by its signing key, rotation keys [recovery,
 * signing]) and one `plc_operation` after it, as an audit log with the library's CIDs.
 */
export async function legacyScenario() {
  const signing = await k256()
  const recovery = await k256()
  const create = await plc.deprecatedSignCreate(
    {
      type: 'create',
      signingKey: signing.did(),
      recoveryKey: recovery.did(),
      handle: 'legacy.test',
      service: 'pds.legacy.test',
      prev: null,
    },
    signing,
  )
  const did = await plc.didForCreateOp(create)
  const update = await plc.updateHandleOp(create, recovery, 'renamed.legacy.test')
  const auditLog = [
    { did, operation: create, cid: (await cidOf(create)).toString(), nullified: false, createdAt: '2022-11-17T01:07:13.996Z' },
    { did, operation: update, cid: (await cidOf(update)).toString(), nullified: false, createdAt: '2023-03-06T18:47:09.501Z' },
  ]
  return { name: 'legacy create', did, keys: { signing: signing.did(), recovery: recovery.did() }, auditLog, states: await referenceStates(did, auditLog) }
}

/** An audit log of `n` operations (genesis, then handle updates a minute apart) for benchmarks. */
export async function longLog(n) {
  const rotation = await k256()
  const { op: genesis, did } = await plc.createOp({
    signingKey: (await k256()).did(),
    handle: 'long.test',
    pds: 'https://pds.long.test',
    rotationKeys: [rotation.did(), (await p256()).did()],
    signer: rotation,
  })
  const start = Date.parse('2025-01-01T00:00:00.000Z')
  const ops = [genesis]
  while (ops.length < n) ops.push(await plc.updateHandleOp(ops.at(-1), rotation, `long${ops.length}.test`))
  const auditLog = []
  for (let i = 0; i < ops.length; i++) {
    auditLog.push({
      did,
      operation: ops[i],
      cid: (await cidOf(ops[i])).toString(),
      nullified: false,
      createdAt: new Date(start + i * 60_000).toISOString(),
    })
  }
  return { did, auditLog, document: (await referenceStates(did, auditLog)).at(-1).document }
}
