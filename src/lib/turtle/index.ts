export { TURTLE_MIME, TurtlePicture, turtleScreenOf, parseTurtleChanges, type TurtleChanges, type TurtleItem, type TurtleSprite } from './picture';
export { drawPicture } from './draw';
export { svgToPng } from './export';
export { TurtleEvents, tkKeyName, type TurtleEvent } from './events';
