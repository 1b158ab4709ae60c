/** Redis Cluster's slot count: a key's slot is CRC16(key) mod 16384. */
export const clusterSlotCount = 16_384;

/** CRC16/XMODEM (polynomial 0x1021, initial value 0), the checksum Redis Cluster hashes keys with. */
const crcTable = (() => {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
    table[byte] = crc & 0xffff;
  }
  return table;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) ^ crcTable[((crc >> 8) ^ byte) & 0xff]!) & 0xffff;
  return crc;
}

/**
 * The hash slot of a key, as Redis Cluster computes it: only the part between the first `{` and the
 * next `}` is hashed when that part is not empty (the hash tag).
 */
export function hashSlotOf(key: string): number {
  const open = key.indexOf("{");
  let hashed = key;
  if (open >= 0) {
    const close = key.indexOf("}", open + 1);
    if (close > open + 1) hashed = key.slice(open + 1, close);
  }
  return crc16(new TextEncoder().encode(hashed)) % clusterSlotCount;
}
