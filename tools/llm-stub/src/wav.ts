/**
 * Real WAV files for tests: 16 kHz mono 16-bit PCM silence of a given length, with a script in
 * the INFO comment that the stand-in's transcription reads (`Speaker: words` per line).
 */
export function makeWav(options: { seconds: number; script?: string }): Buffer {
  const sampleRate = 16_000;
  const data = Buffer.alloc(Math.round(options.seconds * sampleRate) * 2);
  const format = Buffer.alloc(16);
  format.writeUInt16LE(1, 0); // PCM
  format.writeUInt16LE(1, 2); // mono
  format.writeUInt32LE(sampleRate, 4);
  format.writeUInt32LE(sampleRate * 2, 8); // bytes per second
  format.writeUInt16LE(2, 12); // block align
  format.writeUInt16LE(16, 14); // bits per sample
  const chunks = [chunk('fmt ', format)];
  if (options.script !== undefined) {
    const comment = chunk('ICMT', Buffer.from(`${options.script}\0`, 'utf8'));
    chunks.push(chunk('LIST', Buffer.concat([Buffer.from('INFO', 'latin1'), comment])));
  }
  chunks.push(chunk('data', data));
  const body = Buffer.concat([Buffer.from('WAVE', 'latin1'), ...chunks]);
  return chunk('RIFF', body);
}

function chunk(id: string, body: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.write(id, 0, 'latin1');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body, Buffer.alloc(body.length % 2)]);
}
