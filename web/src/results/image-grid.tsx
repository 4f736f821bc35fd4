interface Props {
  images: string[];
  orderId?: string;
}

/** The images a tool generated (data URLs), as a grid. */
export function ImageGrid({ images, orderId }: Props) {
  return (
    <figure className="image-grid">
      <ul className="image-grid__list" aria-label={`${images.length} generated images`}>
        {images.map((src, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a finished result; images may repeat.
          <li key={index} className="image-grid__item">
            <img
              src={src}
              alt={`Generated ${index + 1} of ${images.length}`}
              className="image-grid__image"
            />
          </li>
        ))}
      </ul>
      <figcaption className="image-grid__caption">
        {images.length} {images.length === 1 ? 'image' : 'images'}
        {orderId ? (
          <>
            {' '}
            · order <code>{orderId}</code>
          </>
        ) : null}
      </figcaption>
    </figure>
  );
}
