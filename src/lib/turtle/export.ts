import { SaidError, said } from '../i18n/said';

/**
 * A turtle picture's SVG as a PNG of the same size (twice as many pixels, for sharp prints):
 * drawn by the browser itself from the SVG, so both files show the same picture.
 */
export async function svgToPng(svg: string): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(image.naturalWidth * 2));
    canvas.height = Math.max(1, Math.round(image.naturalHeight * 2));
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new SaidError(said('lib_turtle_no_canvas'));
    ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new SaidError(said('lib_turtle_no_png')))), 'image/png'),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}
