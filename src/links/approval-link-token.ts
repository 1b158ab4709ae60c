import { createHmac, timingSafeEqual } from "node:crypto";
import { TollgateError } from "../errors/index.js";

export const approvalLinkActions = ["approve", "reject"] as const;
export type TApprovalLinkAction = (typeof approvalLinkActions)[number];

/** What a signed link says: who may do what to which approval, until when. */
export interface IApprovalLinkClaims {
  approvalId: string;
  /** The notification target whose `links.approver` the link acts as (revoked when it changes). */
  target: string;
  /** The approver's subject: the link acts as this subject and no other. */
  approver: string;
  action: TApprovalLinkAction;
  /** Epoch milliseconds after which the link is refused. */
  expiresAt: number;
  /**
   * 12 random bytes, base64url: what marks the link used in Redis. The approve and reject links of one
   * message share it, so either one spends both.
   */
  nonce: string;
  /** A reject link of a named option: the option's name (the model reads its promptFill). */
  rejectOption?: string;
  /**
   * SHA-256 (hex) of the input the message showed: the decision is refused (TG_APPROVAL_STALE) when the
   * approval acts on another input by the time the link is used.
   */
  inputHash?: string;
}

/** Version 2 adds the reject option and the input hash; version 1 tokens (15 minutes at most) still read. */
const formatVersion = 2;
const hashBytes = 32;
const nonceBytes = 12;
const macBytes = 32;
/** A field's length is one byte: an approval id, a target name or a subject of at most 255 bytes. */
const maxFieldBytes = 255;
/** Any longer text is no token of ours: refused before it is decoded or hashed. */
export const maxTokenLength = 1_024;
/** A different key than any other use of the secret would derive: the MAC says what it signs. */
const macContext = Buffer.from("tollgate approval link v1\0");

/**
 * The link's token: base64url of `version, action, expiresAt (48-bit ms), nonce, approvalId, target,
 * approver` followed by an HMAC-SHA256 of those bytes with the deployment's link secret. Compact (about
 * 190 characters for a partitioned approval id) and self-contained: minting writes nothing to Redis.
 */
export function signApprovalLink(claims: IApprovalLinkClaims, secret: string): string {
  const nonce = Buffer.from(claims.nonce, "base64url");
  if (nonce.length !== nonceBytes) throw new RangeError(`A link nonce is ${nonceBytes} bytes.`);
  if (!Number.isSafeInteger(claims.expiresAt) || claims.expiresAt < 0 || claims.expiresAt >= 2 ** 48)
    throw new RangeError("A link's expiry is epoch milliseconds.");
  const header = Buffer.alloc(2 + 6);
  header.writeUInt8(formatVersion, 0);
  header.writeUInt8(approvalLinkActions.indexOf(claims.action) + 1, 1);
  header.writeUIntBE(claims.expiresAt, 2, 6);
  if (claims.inputHash !== undefined && !/^[0-9a-f]{64}$/.test(claims.inputHash))
    throw new RangeError("A link's input hash is a SHA-256 in hex.");
  const payload = Buffer.concat([
    header,
    nonce,
    field(claims.approvalId, "approval id"),
    field(claims.target, "target"),
    field(claims.approver, "approver"),
    optionalField(claims.rejectOption, "reject option"),
    claims.inputHash === undefined
      ? Buffer.from([0])
      : Buffer.concat([Buffer.from([hashBytes]), Buffer.from(claims.inputHash, "hex")]),
  ]);
  return Buffer.concat([payload, macOf(payload, secret)]).toString("base64url");
}

/**
 * The claims of a token whose signature verifies with `secret`: TG_LINK_INVALID for anything else
 * (altered, truncated, another secret, not a token), TG_LINK_EXPIRED once `now` is past its expiry.
 * The signature is checked before any field is read, so a forged token reveals nothing.
 */
export function verifyApprovalLink(token: string, secret: string, now: number): IApprovalLinkClaims {
  const bytes = /^[A-Za-z0-9_-]+$/.test(token) && token.length <= maxTokenLength ? decode(token) : undefined;
  if (bytes === undefined || bytes.length < 2 + 6 + nonceBytes + 3 + macBytes) throw invalidLink();
  const payload = bytes.subarray(0, bytes.length - macBytes);
  if (!timingSafeEqual(bytes.subarray(payload.length), macOf(payload, secret))) throw invalidLink();
  const claims = readClaims(payload);
  if (claims === undefined) throw invalidLink();
  if (now >= claims.expiresAt) {
    throw new TollgateError(
      "TG_LINK_EXPIRED",
      `This link expired at ${new Date(claims.expiresAt).toISOString()}; open the approval in the console.`,
      { approvalId: claims.approvalId, expiresAt: claims.expiresAt },
    );
  }
  return claims;
}

export function invalidLink(
  message = "This link is not valid: it was altered, or it was signed with another secret.",
): TollgateError {
  return new TollgateError("TG_LINK_INVALID", message);
}

function readClaims(payload: Buffer): IApprovalLinkClaims | undefined {
  const version = payload.readUInt8(0);
  if (version !== 1 && version !== formatVersion) return undefined;
  const action = approvalLinkActions[payload.readUInt8(1) - 1];
  if (action === undefined) return undefined;
  const expiresAt = payload.readUIntBE(2, 6);
  const nonce = payload.subarray(8, 8 + nonceBytes).toString("base64url");
  const fields: Buffer[] = [];
  let offset = 8 + nonceBytes;
  for (let index = 0; index < (version === 1 ? 3 : 5); index += 1) {
    const length = payload[offset];
    if (length === undefined || offset + 1 + length > payload.length) return undefined;
    fields.push(payload.subarray(offset + 1, offset + 1 + length));
    offset += 1 + length;
  }
  const [approvalId = "", target = "", approver = ""] = fields
    .slice(0, 3)
    .map((bytes) => bytes.toString("utf8"));
  if (offset !== payload.length || approvalId === "" || target === "" || approver === "") return undefined;
  const claims: IApprovalLinkClaims = { approvalId, target, approver, action, expiresAt, nonce };
  const [option, hash] = fields.slice(3);
  if (option !== undefined && option.length > 0) claims.rejectOption = option.toString("utf8");
  if (hash !== undefined && hash.length > 0) {
    if (hash.length !== hashBytes) return undefined;
    claims.inputHash = hash.toString("hex");
  }
  if (claims.rejectOption !== undefined && action !== "reject") return undefined;
  return claims;
}

function field(text: string, name: string): Buffer {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length === 0 || bytes.length > maxFieldBytes)
    throw new RangeError(`A link's ${name} is 1 to ${maxFieldBytes} bytes.`);
  return Buffer.concat([Buffer.from([bytes.length]), bytes]);
}

/** A field that may be empty (length 0). */
function optionalField(text: string | undefined, name: string): Buffer {
  return text === undefined || text === "" ? Buffer.from([0]) : field(text, name);
}

function macOf(payload: Buffer, secret: string): Buffer {
  return createHmac("sha256", secret).update(macContext).update(payload).digest();
}

function decode(token: string): Buffer | undefined {
  const bytes = Buffer.from(token, "base64url");
  // Node ignores a stray trailing character; a token that does not round-trip is not one we made.
  return bytes.toString("base64url") === token ? bytes : undefined;
}
