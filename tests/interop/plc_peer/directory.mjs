// A real PLC directory for the did:plc tests: @did-plc/server (the reference directory) on its
// in-memory database, on a free 127.0.0.1 port, plus a JSON control API on another one.
//
//   node directory.mjs [--port 0] [--control-port 0]
//   stdout: READY {"directoryUrl":"http://127.0.0.1:P","controlUrl":"http://127.0.0.1:C"}
//
// Control API (POST, JSON):
//   /scenarios        DIDs written through the directory (see scenarios.mjs), each with its
//                     audit log and the reference rendering of every valid state; made once
//   /legacy           a legacy `create` genesis log (not accepted by directories any more)
//   /long-log {n}     an n-operation log (benchmarks)
//   /render {did, operation}   today's reference rendering, and the published library's (0.0.4)
//   /cid {operation}  the operation's CID as the library computes it
//   /library-verify {auditLog} the published library's verdict on a whole audit log
//   /stop
import http from 'node:http'
import * as plc from '@did-plc/lib'
import { Database, PlcServer } from '@did-plc/server'
import { CID } from 'multiformats/cid'
import { legacyScenario, longLog, renderOperation, writeScenarios } from './scenarios.mjs'

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}

const listen = (handler, port) =>
  new Promise((resolve) => {
    const server = http.createServer(handler)
    server.listen(port, '127.0.0.1', () => resolve(server))
  })

/**
 * The published @did-plc/lib (0.0.4) replaying an audit log the way its directory accepts
 * operations (`assureValidNextOp`, nullified operations dropped as it goes): whether it accepts
 * the log, and its error otherwise.
 */
async function libraryVerify(auditLog) {
  const did = auditLog[0]?.did
  const ops = []
  try {
    for (const e of auditLog) {
      const live = ops.filter((o) => !o.nullified)
      const { nullified } = await plc.assureValidNextOp(did, live, e.operation)
      for (const o of ops) if (nullified.some((n) => n.equals(o.cid))) o.nullified = true
      ops.push({ did, operation: e.operation, cid: CID.parse(e.cid), nullified: false, createdAt: new Date(e.createdAt) })
    }
    return { accepted: true }
  } catch (err) {
    return { accepted: false, error: `${err?.constructor?.name}: ${String(err?.message ?? err).slice(0, 200)}` }
  }
}

const plcServer = PlcServer.create({ db: Database.mock(), port: 0 })
const directory = await listen(plcServer.app, arg('--port', 0))
const directoryUrl = `http://127.0.0.1:${directory.address().port}`

let scenarios
const routes = {
  '/scenarios': async () => (scenarios ??= writeScenarios(directoryUrl)),
  '/legacy': () => legacyScenario(),
  '/long-log': (body) => longLog(Number(body.n ?? 10)),
  '/render': (body) => ({
    document: renderOperation(body.did, body.operation),
    published: (() => {
      const data = plc.opToData(body.did, body.operation)
      return data === null ? null : plc.formatDidDoc(data)
    })(),
  }),
  '/library-verify': (body) => libraryVerify(body.auditLog),
  '/cid': async (body) => ({ cid: (await plc.getLastOpWithCid([body.operation])).cid.toString() }),
}

const control = await listen(async (req, res) => {
  const chunks = []
  for await (const c of req) chunks.push(c)
  const send = (status, value) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(value))
  }
  if (req.url === '/stop') {
    send(200, { stopping: true })
    setTimeout(() => process.exit(0), 10)
    return
  }
  const route = routes[req.url]
  if (req.method !== 'POST' || !route) return send(404, { error: `no ${req.method} ${req.url}` })
  try {
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {}
    send(200, await route(body))
  } catch (err) {
    process.stderr.write(`${err?.stack ?? err}\n`)
    send(500, { error: String(err?.message ?? err) })
  }
}, arg('--control-port', 0))

process.stdout.write(
  `READY ${JSON.stringify({ directoryUrl, controlUrl: `http://127.0.0.1:${control.address().port}` })}\n`,
)
