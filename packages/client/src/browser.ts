// The browser entry: the same API; nothing in it imports a Node module (isows takes the platform WebSocket).
export * from "./index.js";
