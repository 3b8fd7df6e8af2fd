export * from './webhook-signature';
export * from './webhooks.schema';
export * from './manage-webhooks.use-case';
export * from './publish-webhook-event.use-case';
export * from './deliver-webhook.use-case';
export * from './redrive-webhook-deliveries.use-case';
export * from './webhook-cursor';
