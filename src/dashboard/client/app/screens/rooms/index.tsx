export { RoomScreen } from './room-screen.js';
export { RoomsScreen } from './rooms-screen.js';
