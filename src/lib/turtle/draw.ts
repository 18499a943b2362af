import type { TurtleImage, TurtleItem, TurtlePicture, TurtleShapePart, TurtleSprite } from './picture';

/**
 * Draws a turtle picture on a 2D canvas, scaled to the canvas's width: what a run shows while it
 * draws (the picture the reply keeps is SVG). Colours are the worker's #rrggbb or 'none'.
 */
export function drawPicture(ctx: CanvasRenderingContext2D, picture: TurtlePicture): void {
  const [x, y, w, h] = picture.view;
  const scale = ctx.canvas.width / w;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, ctx.canvas.width, ctx.canvas.height);
  ctx.setTransform(scale, 0, 0, scale, -x * scale, -y * scale);
  if (picture.bg !== 'none') {
    ctx.fillStyle = picture.bg;
    ctx.fillRect(x, y, w, h);
  }
  if (picture.bgpic) drawImage(ctx, picture.bgpic, () => picture.version++);
  ctx.lineCap = 'round';
  ctx.lineJoin = 'round';
  for (const item of picture.items.values()) drawItem(ctx, item);
  for (const sprite of picture.sprites.values()) drawSprite(ctx, sprite);
}

function path(ctx: CanvasRenderingContext2D, pts: number[], close: boolean): void {
  ctx.beginPath();
  ctx.moveTo(pts[0], pts[1]);
  for (let i = 2; i + 1 < pts.length; i += 2) ctx.lineTo(pts[i], pts[i + 1]);
  if (close) ctx.closePath();
}

function stroke(ctx: CanvasRenderingContext2D, color: string, width: number): void {
  if (color === 'none' || width <= 0) return;
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.stroke();
}

function drawItem(ctx: CanvasRenderingContext2D, item: TurtleItem): void {
  switch (item.kind) {
    case 'line':
      if (item.pts.length < 4) return;
      path(ctx, item.pts, false);
      stroke(ctx, item.color, item.width);
      return;
    case 'poly':
      if (item.pts.length < 6) return;
      path(ctx, item.pts, true);
      if (item.fill && item.fill !== 'none') {
        ctx.fillStyle = item.fill;
        ctx.fill('evenodd');
      }
      stroke(ctx, item.outline || 'none', item.width);
      return;
    case 'dot':
      if (item.color === 'none') return;
      ctx.beginPath();
      ctx.arc(item.x, item.y, item.size / 2, 0, 2 * Math.PI);
      ctx.fillStyle = item.color;
      ctx.fill();
      return;
    case 'text': {
      const [family, size, style] = item.font;
      ctx.font = `${style.includes('italic') ? 'italic ' : ''}${style.includes('bold') ? 'bold ' : ''}${(size * 4) / 3}px ${JSON.stringify(family)}, sans-serif`;
      ctx.textAlign = item.align;
      ctx.textBaseline = 'alphabetic';
      ctx.fillStyle = item.color === 'none' ? 'transparent' : item.color;
      ctx.fillText(item.text, item.x, item.y);
    }
  }
}

/** Decoded background pictures by their data URL: decoding takes a while, and the frame after it draws the picture. */
const images = new Map<string, HTMLImageElement>();

function drawImage(ctx: CanvasRenderingContext2D, image: TurtleImage, loaded: () => void): void {
  let element = images.get(image.href);
  if (!element) {
    element = new Image();
    element.onload = loaded;
    element.src = image.href;
    images.set(image.href, element);
  }
  if (element.complete && element.naturalWidth) ctx.drawImage(element, -image.width / 2, -image.height / 2, image.width, image.height);
}

function drawSprite(ctx: CanvasRenderingContext2D, sprite: TurtleSprite): void {
  if (sprite.trail && sprite.trail.pts.length >= 4) {
    path(ctx, sprite.trail.pts, false);
    stroke(ctx, sprite.trail.color, sprite.trail.width);
  }
  for (const part of sprite.parts ?? [sprite]) drawShapePart(ctx, part);
}

function drawShapePart(ctx: CanvasRenderingContext2D, part: TurtleShapePart): void {
  if (part.pts.length < 6) return;
  path(ctx, part.pts, true);
  if (part.fill !== 'none') {
    ctx.fillStyle = part.fill;
    ctx.fill('evenodd');
  }
  stroke(ctx, part.outline, part.width);
}
