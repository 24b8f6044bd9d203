/**
 * W3C Data Integrity proofs (`DataIntegrityProof`, VC Data Integrity 1.0) with Digital Bazaar's
 * libraries: `@digitalbazaar/data-integrity` 2.5.0 and the `eddsa-rdfc-2022` (Ed25519) and
 * `ecdsa-rdfc-2019` (P-256 with SHA-256, P-384 with SHA-384) cryptosuites 1.3.0, the ones the
 * W3C's own test vectors were checked with. They are loaded on the first proof that needs them,
 * through the one lazy loader (`base/lazy.ts`: concurrent first uses share one import; a failed
 * import is tried again by the next use).
 *
 * @module
 */
import { ed25519 } from "@noble/curves/ed25519.js";
import { lazy } from "../../base/mod.ts";

/** The cryptosuites this service verifies. */
export const VERIFIED_CRYPTOSUITES = ["eddsa-rdfc-2022", "ecdsa-rdfc-2019"] as const;
/** The cryptosuite this service signs with (its keys are Ed25519). */
export const SIGNING_CRYPTOSUITE = "eddsa-rdfc-2022";

/** A cryptosuite object as the libraries export it. */
type Cryptosuite = { name: string };
/** `DataIntegrityProof` of `@digitalbazaar/data-integrity` (the package has no types). */
type DataIntegrityProofClass = new (options: {
  cryptosuite: Cryptosuite;
  signer?: {
    id: string;
    algorithm: string;
    sign(input: { data: Uint8Array }): Promise<Uint8Array>;
  };
  date?: Date;
}) => unknown;

interface Libraries {
  DataIntegrityProof: DataIntegrityProofClass;
  eddsa: Cryptosuite;
  ecdsa: Cryptosuite;
}

/** The libraries, imported on first use (`base/lazy.ts`). */
const libraries = lazy<Libraries>(async () => {
  const [di, eddsa, ecdsa] = await Promise.all([
    import("@digitalbazaar/data-integrity"),
    import("@digitalbazaar/eddsa-rdfc-2022-cryptosuite"),
    import("@digitalbazaar/ecdsa-rdfc-2019-cryptosuite"),
  ]);
  return {
    DataIntegrityProof: di.DataIntegrityProof as DataIntegrityProofClass,
    eddsa: eddsa.cryptosuite as Cryptosuite,
    ecdsa: ecdsa.cryptosuite as Cryptosuite,
  };
});

/** Whether `proof` is a Data Integrity proof of a cryptosuite this service verifies. */
export function isVerifiedDataIntegrityProof(proof: Record<string, unknown>): boolean {
  return proof.type === "DataIntegrityProof" &&
    (VERIFIED_CRYPTOSUITES as readonly unknown[]).includes(proof.cryptosuite);
}

/** One verifying `DataIntegrityProof` suite per cryptosuite of {@link VERIFIED_CRYPTOSUITES}. */
export async function dataIntegrityVerifySuites(): Promise<unknown[]> {
  const { DataIntegrityProof, eddsa, ecdsa } = await libraries();
  return [
    new DataIntegrityProof({ cryptosuite: eddsa }),
    new DataIntegrityProof({ cryptosuite: ecdsa }),
  ];
}

/**
 * A signing `DataIntegrityProof` suite of `eddsa-rdfc-2022` for the Ed25519 key `seed` (32 bytes,
 * read when it signs: the caller wipes it after) named `verificationMethod`; proof `created` =
 * `date` (default now).
 */
export async function eddsaSigningSuite(
  verificationMethod: string,
  seed: Uint8Array,
  date?: Date,
): Promise<unknown> {
  const { DataIntegrityProof, eddsa } = await libraries();
  return new DataIntegrityProof({
    cryptosuite: eddsa,
    signer: {
      id: verificationMethod,
      algorithm: "Ed25519",
      sign: ({ data }) => Promise.resolve(ed25519.sign(data, seed)),
    },
    ...(date ? { date } : {}),
  });
}
