// Old-style Office containers (OLE compound files). A password-protected .docx/.xlsx/.pptx is one
// of these, holding an "EncryptedPackage" stream; anything else in one is a legacy .doc/.xls/.ppt.
import { ExtractFailure } from './failure.ts';

const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const ENCRYPTED_PACKAGE = Buffer.from('EncryptedPackage\0', 'utf16le');

export function isOle(bytes: Uint8Array): boolean {
  return OLE_MAGIC.every((v, i) => bytes[i] === v);
}

/**
 * Directory entries are 128 bytes, aligned to 128 (sectors are 512 or 4096 bytes), and start with
 * the UTF-16LE name, whose byte length (with the NUL) sits at offset 64.
 */
function hasEncryptedPackage(bytes: Uint8Array): boolean {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = buf.indexOf(ENCRYPTED_PACKAGE);
  while (at !== -1) {
    if (
      at % 128 === 0 &&
      at + 66 <= buf.length &&
      buf.readUInt16LE(at + 64) === ENCRYPTED_PACKAGE.length
    )
      return true;
    at = buf.indexOf(ENCRYPTED_PACKAGE, at + 1);
  }
  return false;
}

/** Throws the right failure for an OLE file; does nothing for anything else. */
export function refuseOle(bytes: Uint8Array): void {
  if (!isOle(bytes)) return;
  if (hasEncryptedPackage(bytes)) throw new ExtractFailure('encrypted');
  throw new ExtractFailure(
    'unsupported_type',
    'it is in an old Office format (.doc, .xls or .ppt); save it as .docx or PDF',
  );
}
