const VERB = '(?:generate|genera|generar|make|create|crea|crear|draw|dibuja|render|produce)';
const COUNT = '(\\d+|an|a|one|una|un)';
const NOUN = '(?:images?|pictures?|imágenes|imagenes|imagen|photos?|fotos?)';
// Up to two words may describe the pictures: "make 3 cat pictures", "generate a blue image".
const DESCRIPTION = '(?:[\\p{L}-]+\\s+){0,2}?';
// Lookarounds instead of \b, which only knows ASCII letters ("imágenes").
const START = '(?<![\\p{L}\\d])';
const END = '(?![\\p{L}])';
// The count follows the verb within 60 characters ("make me, please, 3 cat pictures"), so a
// long text without a match costs linear time.
const REQUEST = new RegExp(
  `${START}${VERB}${END}.{0,60}?${START}${COUNT}\\s+${DESCRIPTION}${NOUN}${END}`,
  'u',
);

/**
 * How many images a message asks for ("Generate 10 images", "generate an image",
 * "Genera 10 imágenes", "make 3 pictures"), or undefined when it asks for none.
 * The count is not range-checked, so the caller can explain the limits.
 */
export function parseImageRequest(text: string): number | undefined {
  const match = REQUEST.exec(text.normalize('NFKC').toLowerCase());
  const count = match?.[1];
  if (count === undefined) return undefined;
  return /^\d+$/.test(count) ? Number(count) : 1;
}
