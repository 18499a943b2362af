import type { PyTabsDB } from '../storage/db';

/**
 * Which device made an export: each device has its own HMAC key, made on its first export,
 * kept in the settings store and never readable (non-extractable), so no file made
 * elsewhere can carry a valid signature. Erasing the device's data forgets the key, after
 * which its own older exports count as made elsewhere too.
 */
const KEY = 'deviceKey';

async function storedKey(db: PyTabsDB): Promise<CryptoKey | null> {
  const value = (await db.get('settings', KEY))?.value as CryptoKey | undefined;
  return value && typeof value === 'object' && value.type === 'secret' ? value : null;
}

async function deviceKey(db: PyTabsDB): Promise<CryptoKey> {
  const found = await storedKey(db);
  if (found) return found;
  const key = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  try {
    // `add`, not `put`: another tab may have made its key meanwhile, and one key must win.
    await db.add('settings', { key: KEY, value: key });
    return key;
  } catch (error) {
    if ((error as DOMException)?.name !== 'ConstraintError') throw error;
    return (await storedKey(db))!;
  }
}

/** The signature of a manifest's bytes, as hex text. */
export async function signManifest(db: PyTabsDB, manifest: Uint8Array): Promise<Uint8Array> {
  const mac = await crypto.subtle.sign('HMAC', await deviceKey(db), manifest as Uint8Array<ArrayBuffer>);
  const hex = Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, '0')).join('');
  return new TextEncoder().encode(hex);
}

/** Whether this device signed these manifest bytes (false for no signature, or another device's). */
export async function madeOnThisDevice(db: PyTabsDB, manifest: Uint8Array, signature: Uint8Array | undefined): Promise<boolean> {
  if (!signature || signature.byteLength !== 64) return false;
  const hex = new TextDecoder().decode(signature);
  if (!/^[0-9a-f]{64}$/.test(hex)) return false;
  const key = await storedKey(db);
  if (!key) return false;
  const mac = new Uint8Array(hex.match(/../g)!.map((pair) => parseInt(pair, 16)));
  return crypto.subtle.verify('HMAC', key, mac, manifest as Uint8Array<ArrayBuffer>);
}
