/**
 * A drop zone for files (the chat, the Files panel, the sessions list): `dragging` while files
 * are over it, for its highlight, and `onfiles` with what was dropped.
 *
 * @example const drop = new FileDrop((files) => void view.upload(files));
 * // <div class:dragging={drop.dragging} ondragover={drop.over} ondragleave={drop.leave} ondrop={drop.drop}>
 */
export class FileDrop {
  dragging = $state(false);

  constructor(private readonly onfiles: (files: FileList) => void) {}

  over = (event: DragEvent): void => {
    if (!event.dataTransfer?.types.includes('Files')) return;
    event.preventDefault();
    this.dragging = true;
  };

  /** Moving onto one of the zone's own children is not leaving it. */
  leave = (event: DragEvent): void => {
    if (!(event.currentTarget as HTMLElement).contains(event.relatedTarget as Node)) this.dragging = false;
  };

  drop = (event: DragEvent): void => {
    event.preventDefault();
    this.dragging = false;
    if (event.dataTransfer?.files.length) this.onfiles(event.dataTransfer.files);
  };
}
