// KMS backend: Credo's NodeKeyManagementService plus the RFC 0019 key wrapping it
// lacks (ECDH-HSALSA20 + XSALSA20-POLY1305 = libsodium crypto_box / crypto_box_seal).
// Every other operation is delegated unchanged.
import { Kms, TypedArrayEncoder } from "@credo-ts/core";
import { NodeInMemoryKeyManagementStorage, NodeKeyManagementService } from "@credo-ts/node";
import sodium from "libsodium-wrappers";

await sodium.ready;

const WRAP_ENC = "XSALSA20-POLY1305";
const WRAP_KA = "ECDH-HSALSA20";

function isWrap(algorithm, keyAgreement) {
  return algorithm === WRAP_ENC &&
    (!keyAgreement || keyAgreement.algorithm === WRAP_KA);
}

function fromB64u(value) {
  return new Uint8Array(TypedArrayEncoder.fromBase64(value));
}

/** X25519 key pair for a stored private JWK (Ed25519 keys are converted). */
function x25519KeyPair(jwk, keyId) {
  if (jwk?.kty !== "OKP") {
    throw new Kms.KeyManagementError(`key '${keyId}' is not an OKP key`);
  }
  if (jwk.crv === "X25519") {
    const privateKey = fromB64u(jwk.d);
    return { privateKey, publicKey: sodium.crypto_scalarmult_base(privateKey) };
  }
  if (jwk.crv === "Ed25519") {
    const ed = sodium.crypto_sign_seed_keypair(fromB64u(jwk.d));
    return {
      privateKey: sodium.crypto_sign_ed25519_sk_to_curve25519(ed.privateKey),
      publicKey: sodium.crypto_sign_ed25519_pk_to_curve25519(ed.publicKey),
    };
  }
  throw new Kms.KeyManagementError(
    `key '${keyId}' has unsupported crv '${jwk.crv}' for ${WRAP_KA}`,
  );
}

function externalX25519(jwk) {
  if (jwk?.kty !== "OKP" || jwk.crv !== "X25519") {
    throw new Kms.KeyManagementError(
      `${WRAP_KA} needs an X25519 external public key`,
    );
  }
  return fromB64u(jwk.x);
}

/** Node KMS with libsodium crypto_box key wrapping, registered as backend "node". */
export class SodiumWrappedKms {
  backend = "node";

  constructor(storage = new NodeInMemoryKeyManagementStorage()) {
    this.storage = storage;
    this.inner = new NodeKeyManagementService(storage);
  }

  isOperationSupported(agentContext, operation) {
    if (
      operation.operation === "encrypt" &&
      operation.encryption?.algorithm === WRAP_ENC
    ) {
      return isWrap(operation.encryption.algorithm, operation.keyAgreement);
    }
    if (
      operation.operation === "decrypt" &&
      operation.decryption?.algorithm === WRAP_ENC
    ) {
      return isWrap(operation.decryption.algorithm, operation.keyAgreement);
    }
    return this.inner.isOperationSupported(agentContext, operation);
  }

  async #privateJwk(agentContext, keyId) {
    const jwk = await this.storage.get(agentContext, keyId);
    if (!jwk) {
      throw new Kms.KeyManagementKeyNotFoundError(keyId, [this.backend]);
    }
    return jwk;
  }

  async encrypt(agentContext, options) {
    const keyAgreement = options.key?.keyAgreement;
    if (!isWrap(options.encryption.algorithm, keyAgreement) || !keyAgreement) {
      return this.inner.encrypt(agentContext, options);
    }
    const recipient = externalX25519(keyAgreement.externalPublicJwk);
    const data = new Uint8Array(options.data);
    if (!keyAgreement.keyId) {
      // Anoncrypt: sealed box (ephemeral sender key, nonce derived from the keys).
      return { encrypted: sodium.crypto_box_seal(data, recipient) };
    }
    const sender = x25519KeyPair(
      await this.#privateJwk(agentContext, keyAgreement.keyId),
      keyAgreement.keyId,
    );
    const iv = sodium.randombytes_buf(sodium.crypto_box_NONCEBYTES);
    return {
      encrypted: sodium.crypto_box_easy(data, iv, recipient, sender.privateKey),
      iv,
    };
  }

  async decrypt(agentContext, options) {
    const keyAgreement = options.key?.keyAgreement;
    if (!isWrap(options.decryption.algorithm, keyAgreement) || !keyAgreement) {
      return this.inner.decrypt(agentContext, options);
    }
    const own = x25519KeyPair(
      await this.#privateJwk(agentContext, keyAgreement.keyId),
      keyAgreement.keyId,
    );
    const encrypted = new Uint8Array(options.encrypted);
    try {
      if (!keyAgreement.externalPublicJwk) {
        return {
          data: sodium.crypto_box_seal_open(
            encrypted,
            own.publicKey,
            own.privateKey,
          ),
        };
      }
      const iv = options.decryption.iv;
      if (!iv) {
        throw new Kms.KeyManagementError(
          "crypto_box decryption needs an iv (nonce)",
        );
      }
      const sender = externalX25519(keyAgreement.externalPublicJwk);
      return {
        data: sodium.crypto_box_open_easy(
          encrypted,
          new Uint8Array(iv),
          sender,
          own.privateKey,
        ),
      };
    } catch (error) {
      if (error instanceof Kms.KeyManagementError) throw error;
      throw new Kms.KeyManagementError(`${WRAP_KA} decryption failed`, {
        cause: error,
      });
    }
  }

  randomBytes(agentContext, options) {
    return this.inner.randomBytes(agentContext, options);
  }
  getPublicKey(agentContext, keyId) {
    return this.inner.getPublicKey(agentContext, keyId);
  }
  importKey(agentContext, options) {
    return this.inner.importKey(agentContext, options);
  }
  deleteKey(agentContext, options) {
    return this.inner.deleteKey(agentContext, options);
  }
  createKey(agentContext, options) {
    return this.inner.createKey(agentContext, options);
  }
  sign(agentContext, options) {
    return this.inner.sign(agentContext, options);
  }
  verify(agentContext, options) {
    return this.inner.verify(agentContext, options);
  }
}
