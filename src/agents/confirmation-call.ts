export { CONFIRMATION_CALL } from '../core/confirmation-request.js';
