export * from './decision-policy.params';
export * from './decision-policy';
export * from './remembered-decision';
export * from './reporter-trust';
export * from './consensus';
export * from './planted-siblings';
export * from './enhancement-trust';
