import { encodePng } from './png.js';

const SIZE = 48;
type Rgb = readonly [number, number, number];

function hslToRgb(hue: number, saturation: number, lightness: number): Rgb {
  const a = saturation * Math.min(lightness, 1 - lightness);
  const channel = (n: number): number => {
    const k = (n + hue / 30) % 12;
    return Math.round(255 * (lightness - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [channel(0), channel(8), channel(4)];
}

/** Whether pixel (x, y) is in the foreground of pattern `kind`. */
function inPattern(kind: number, x: number, y: number): boolean {
  const c = SIZE / 2;
  switch (kind) {
    case 0:
      return (x - c) ** 2 + (y - c) ** 2 < (SIZE / 3) ** 2;
    case 1:
      return Math.floor(x / 8) % 2 === 0;
    case 2:
      return (Math.floor(x / 8) + Math.floor(y / 8)) % 2 === 0;
    default:
      return x + y < SIZE;
  }
}

/**
 * Draws image `index` of an order: a hue picked by the golden angle so neighbours
 * differ strongly, on one of four patterns. Deterministic, so a retried effect
 * returns the same pictures.
 */
function drawImage(index: number): Buffer {
  const hue = (index * 137.508) % 360;
  const foreground = hslToRgb(hue, 0.75, 0.5);
  const background = hslToRgb((hue + 180) % 360, 0.35, 0.88);
  const kind = index % 4;
  return encodePng(SIZE, SIZE, (x, y) => (inPattern(kind, x, y) ? foreground : background));
}

/** `count` distinct small PNG images as `data:image/png;base64,…` URLs. */
export function generateImages(count: number): string[] {
  return Array.from(
    { length: count },
    (_, index) => `data:image/png;base64,${drawImage(index).toString('base64')}`,
  );
}
