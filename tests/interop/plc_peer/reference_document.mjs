// The DID document rendering of the PLC reference implementation as plc.directory runs it today:
// `formatDidDoc` of did-method-plc `packages/lib/src/document.ts` at commit
// cc1bd183da1d4fb3649467eaf9c18afa1ba73f39, transcribed from TypeScript to JavaScript with no
// change of behaviour, on the @atproto/crypto version that commit's package.json pins (0.4.3).
// The published @did-plc/lib (0.0.4, 2023) still renders the older format
// (`EcdsaSecp256r1VerificationKey2019`, relative key ids), so the tests' oracle is this file.
//
// Copyright (c) 2022-2026 Bluesky Social PBC; dual MIT / Apache-2.0 licensed, as the whole
// did-method-plc repository (its LICENSE, LICENSE-MIT, LICENSE-APACHE). Used here as a test oracle
// only; the service's own rendering is src/did/methods/plc/document.ts.
import * as crypto from '@atproto/crypto'

export const formatDidDoc = (data) => {
  const context = [
    'https://www.w3.org/ns/did/v1',
    'https://w3id.org/security/multikey/v1',
  ]

  const verificationMethods = []
  for (const [keyid, key] of Object.entries(data.verificationMethods)) {
    const info = formatKeyAndContext(key)
    if (info.context && !context.includes(info.context)) {
      context.push(info.context)
    }
    verificationMethods.push({
      id: `${data.did}#${keyid}`,
      type: info.type,
      controller: data.did,
      publicKeyMultibase: info.publicKeyMultibase,
    })
  }

  const services = []
  for (const [serviceId, service] of Object.entries(data.services)) {
    services.push({
      id: `#${serviceId}`,
      type: service.type,
      serviceEndpoint: service.endpoint,
    })
  }

  return {
    '@context': context,
    id: data.did,
    alsoKnownAs: data.alsoKnownAs,
    verificationMethod: verificationMethods,
    service: services,
  }
}

const formatKeyAndContext = (key) => {
  let keyInfo
  try {
    keyInfo = crypto.parseDidKey(key)
  } catch (err) {
    return {
      type: 'Multikey',
      publicKeyMultibase: key.replace(/^(did:key:)/, ''),
    }
  }
  const { jwtAlg } = keyInfo

  if (jwtAlg === crypto.P256_JWT_ALG) {
    return {
      context: 'https://w3id.org/security/suites/ecdsa-2019/v1',
      type: 'Multikey',
      publicKeyMultibase: key.replace(/^(did:key:)/, ''),
    }
  } else if (jwtAlg === crypto.SECP256K1_JWT_ALG) {
    return {
      context: 'https://w3id.org/security/suites/secp256k1-2019/v1',
      type: 'Multikey',
      publicKeyMultibase: key.replace(/^(did:key:)/, ''),
    }
  }

  return {
    type: 'Multikey',
    publicKeyMultibase: key.replace(/^(did:key:)/, ''),
  }
}
