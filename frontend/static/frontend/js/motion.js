// Reduced motion (issue 15 contract): the system's preference or the player's
// setting (`data-motion="reduced"` on <html>, applied from the settings).

export function reducedMotion() {
  return matchMedia("(prefers-reduced-motion: reduce)").matches || document.documentElement.dataset.motion === "reduced";
}
