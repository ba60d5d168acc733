import { randomBytes } from 'node:crypto';
import { kitConfig } from '../../../../test/kit';
import { CodecService, type WirePayload } from './codec.service';

/**
 * CodecService (the codec server): encode then decode gives the payload back; a payload of an
 * unknown key, a tampered one, or an encrypted one with the codec off is a 400 naming it; with the
 * codec off, plain payloads pass unchanged.
 */
const b64 = (text: string) => Buffer.from(text).toString('base64');
const plain = { metadata: { encoding: b64('json/plain') }, data: b64('{"job":"nightly"}') };

const codecConfig = (keys: Record<string, string>, encryptKeyId: string) =>
  kitConfig({ temporal: { codec: { keys, encrypt_key_id: encryptKeyId } } });

describe('CodecService', () => {
  const k1 = randomBytes(32).toString('base64');
  const service = new CodecService(codecConfig({ k1 }, 'k1'));

  it('should encrypt a payload (nothing of it readable) and decode it back', async () => {
    const { payloads } = await service.encode([plain]);
    expect(payloads).toHaveLength(1);
    expect(Buffer.from(payloads[0].data, 'base64').toString('latin1')).not.toContain('nightly');
    const decoded = await service.decode(payloads);
    expect(decoded.payloads).toEqual([plain]);
  });

  it('should pass a plain payload through decode unchanged', async () => {
    await expect(service.decode([plain])).resolves.toEqual({ payloads: [plain] });
  });

  it('should refuse what another key encrypted, or a tampered payload, naming each (400)', async () => {
    const other = new CodecService(codecConfig({ k2: randomBytes(32).toString('base64') }, 'k2'));
    const [foreign] = (await other.encode([plain])).payloads;
    const [mine] = (await service.encode([plain])).payloads;
    const data = Buffer.from(mine.data, 'base64');
    data[data.length - 1] ^= 1;
    const tampered: WirePayload = { ...mine, data: data.toString('base64') };
    await expect(service.decode([plain, foreign, tampered])).rejects.toMatchObject({
      status: 400,
      body: {
        code: 'validation_failed',
        fields: { 'payloads.1': expect.stringContaining('k2'), 'payloads.2': expect.any(String) },
      },
    });
  });

  it('should decode with an old key still listed after the encrypting key changed (rotation)', async () => {
    const [old] = (await service.encode([plain])).payloads;
    const rotated = new CodecService(codecConfig({ k1, k2: randomBytes(32).toString('base64') }, 'k2'));
    await expect(rotated.decode([old])).resolves.toEqual({ payloads: [plain] });
  });

  describe('with the codec off', () => {
    const off = new CodecService(kitConfig());

    it('should encode and decode plain payloads unchanged', async () => {
      await expect(off.encode([plain])).resolves.toEqual({ payloads: [plain] });
      await expect(off.decode([plain])).resolves.toEqual({ payloads: [plain] });
    });

    it('should refuse an encrypted payload, naming its key id (400)', async () => {
      const [encrypted] = (await service.encode([plain])).payloads;
      await expect(off.decode([encrypted])).rejects.toMatchObject({
        status: 400,
        body: { fields: { 'payloads.0': expect.stringContaining('key id "k1", but the payload codec is off') } },
      });
    });
  });
});
